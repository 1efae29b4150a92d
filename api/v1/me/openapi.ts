import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { operation } from '../openapi/common';
import { currentKeyOut } from './schemas';

export const meOpenApi: ZodOpenApiPathsObject = {
  '/v1/me': {
    get: operation({
      operationId: 'getMe',
      summary: 'The API key making the request and the companies it may access',
      tags: ['Companies'],
      success: { status: 200, description: 'The current key.', schema: currentKeyOut },
    }),
  },
};
