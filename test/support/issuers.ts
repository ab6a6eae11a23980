/**
 * A sending company must be the issuer its documents name (ISSUER_MISMATCH otherwise). These give
 * tests the issuers their fixtures name: an organization holding companies of given VAT numbers
 * (sandbox registry), and corpus invoices re-issued by a sandbox company.
 */
import { api, bootstrap } from './app.ts';

export interface Issuers {
  apiKey: string;
  organizationId: string;
  company: { id: string; vatNumber: string; peppolId: string };
  /** Companies by VAT number. */
  companies: Record<string, { id: string; peppolId: string }>;
  /** Headers to send as the company of this VAT number. */
  as(vatNumber: string): Record<string, string>;
}

/** A sandbox organization (platform key) with one company per VAT number, created through the API. */
export async function issuers(baseUrl: string, vatNumbers: readonly string[], label = 'issuers'): Promise<Issuers> {
  const org = await bootstrap(baseUrl, { label, keyType: 'platform' });
  const companies: Issuers['companies'] = {};
  for (const vatNumber of vatNumbers) {
    const res = await api(baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber } });
    if (res.status !== 201) throw new Error(`company ${vatNumber}: ${res.status} ${res.text}`);
    companies[vatNumber] = { id: res.body.id, peppolId: res.body.peppolId };
  }
  return {
    ...org,
    companies,
    as(vatNumber) {
      const c = companies[vatNumber];
      if (!c) throw new Error(`no company ${vatNumber} in this organization`);
      return { 'x-service-company': c.id };
    },
  };
}

/**
 * A corpus invoice as the given company would send it: the seller's electronic address (UBL) or VAT
 * number (CII) becomes the company's, nothing else changes.
 */
export function reissued(xml: string, company: { vatNumber: string; peppolId: string }): string {
  if (xml.includes('<cac:AccountingSupplierParty>')) {
    const [scheme, value] = [company.peppolId.slice(0, 4), company.peppolId.slice(5)];
    return xml.replace(/(<cac:AccountingSupplierParty>[\s\S]*?<cbc:EndpointID schemeID=")[^"]*(">)[^<]*(<\/cbc:EndpointID>)/, `$1${scheme}$2${value}$3`);
  }
  return xml.replace(/(<ram:SellerTradeParty>[\s\S]*?<ram:ID schemeID="VA">)[^<]*(<\/ram:ID>)/, `$1${company.vatNumber}$2`);
}
