/**
 * Minimal buyer-event ApplicationResponses and their ZIPs for simulator tests. The signature
 * is a placeholder: tests inject a permissive `verifyApplicationResponse`; real XAdES comes
 * from domain/dian.
 */
import { createHash } from 'node:crypto';
import AdmZip from 'adm-zip';

export type TestEvent = { cufe: string; eventCode: string; senderNit: string; receiverNit?: string; cude?: string; id?: string };

export function buildTestApplicationResponse(event: TestEvent): { xml: string; cude: string } {
  const cude = event.cude ?? createHash('sha384').update(`${event.cufe}|${event.eventCode}|${event.senderNit}`).digest('hex');
  const id = event.id ?? `EV${event.eventCode}-${cude.slice(0, 6)}`;
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<ApplicationResponse xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2" ` +
    `xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" ` +
    `xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2" ` +
    `xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2" ` +
    `xmlns:ds="http://www.w3.org/2000/09/xmldsig#">` +
    `<ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent><ds:Signature Id="placeholder"/></ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions>` +
    `<cbc:UBLVersionID>UBL 2.1</cbc:UBLVersionID><cbc:CustomizationID>1</cbc:CustomizationID>` +
    `<cbc:ProfileID>DIAN 2.1: ApplicationResponse de la Factura Electrónica de Venta</cbc:ProfileID>` +
    `<cbc:ProfileExecutionID>2</cbc:ProfileExecutionID><cbc:ID>${id}</cbc:ID>` +
    `<cbc:UUID schemeID="2" schemeName="CUDE-SHA384">${cude}</cbc:UUID>` +
    `<cbc:IssueDate>2024-05-02</cbc:IssueDate><cbc:IssueTime>10:00:00-05:00</cbc:IssueTime>` +
    `<cac:SenderParty><cac:PartyTaxScheme><cbc:RegistrationName>Comprador</cbc:RegistrationName>` +
    `<cbc:CompanyID schemeAgencyID="195" schemeName="31">${event.senderNit}</cbc:CompanyID>` +
    `<cac:TaxScheme><cbc:ID>01</cbc:ID><cbc:Name>IVA</cbc:Name></cac:TaxScheme></cac:PartyTaxScheme></cac:SenderParty>` +
    `<cac:ReceiverParty><cac:PartyTaxScheme><cbc:RegistrationName>Vendedor</cbc:RegistrationName>` +
    `<cbc:CompanyID schemeAgencyID="195" schemeName="31">${event.receiverNit ?? '800000000'}</cbc:CompanyID>` +
    `<cac:TaxScheme><cbc:ID>01</cbc:ID><cbc:Name>IVA</cbc:Name></cac:TaxScheme></cac:PartyTaxScheme></cac:ReceiverParty>` +
    `<cac:DocumentResponse><cac:Response><cbc:ResponseCode>${event.eventCode}</cbc:ResponseCode>` +
    `<cbc:Description>evento ${event.eventCode}</cbc:Description></cac:Response>` +
    `<cac:DocumentReference><cbc:ID>SETP990000001</cbc:ID><cbc:UUID schemeName="CUFE-SHA384">${event.cufe}</cbc:UUID>` +
    `<cbc:DocumentTypeCode>01</cbc:DocumentTypeCode></cac:DocumentReference></cac:DocumentResponse>` +
    `</ApplicationResponse>`;
  return { xml, cude };
}

export function zipXml(fileName: string, xml: string): Buffer {
  const zip = new AdmZip();
  zip.addFile(fileName, Buffer.from(xml, 'utf8'));
  return zip.toBuffer();
}

export function buildTestEventZip(event: TestEvent): { zip: Buffer; fileName: string; cude: string; xml: string } {
  const { xml, cude } = buildTestApplicationResponse(event);
  const base = `ar${event.senderNit.padStart(10, '0')}${event.eventCode}${cude.slice(0, 8)}`;
  return { zip: zipXml(`${base}.xml`, xml), fileName: `${base}.zip`, cude, xml };
}
