import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { linksTo, operation, pageOf, pageQuery, pathIds } from '../openapi/common';
import { CONTACT_PAGE } from './routes';
import { contactOut } from '../../../services/presenters/contact';

const tags = ['Contacts'];

export const contactsOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies/{company_id}/contacts': {
    get: operation({
      operationId: 'listContacts',
      summary: "The company's contacts (scope contacts:read), by id",
      tags,
      restricted: true,
      path: pathIds('company_id'),
      query: pageQuery(CONTACT_PAGE),
      success: { status: 200, description: 'A page of contacts.', schema: pageOf(contactOut), links: linksTo('contact_id', 'data/0/id', ['getContact']) },
    }),
  },
  '/v1/contacts/{contact_id}': {
    get: operation({
      operationId: 'getContact',
      summary: 'One contact (scope contacts:read)',
      tags,
      restricted: true,
      path: pathIds('contact_id'),
      success: { status: 200, description: 'The contact.', schema: contactOut },
    }),
  },
};
