/**
 * The cius-ro pack on official documents. ANAF's own example set is not in the corpus (nor reachable
 * from here), so the official CEN/TC 434 UBL examples (eInvoicing-EN16931/ubl/examples) are declared
 * CIUS-RO 1.0.1 and checked against what the published BR-RO rules say of them, computed independently
 * from each document with libxmljs2 XPath: BR-RO-001 never fires; BR-RO-030 fires exactly on a
 * non-RON invoice without RON as its VAT currency; BR-RO-010 on a number without a digit; BR-RO-081 /
 * 082 / 091 / 092 on a party without street or city; BR-RO-065 / 120 on a taxed invoice whose seller /
 * buyer has no tax identity; BR-RO-180 / 201 / 211 on an incomplete delivery address (whatever its
 * country); no county rule fires (no example is Romanian).
 * Both engines (compiled JavaScript and saxon-js) give the same findings on each.
 */
import libxml from 'libxmljs2';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '../../services/validation/engine/index.ts';
import { CORPUS_DIR } from '../support/corpus.ts';
import { diffCase, describe as describeDiff } from './engine-diff.ts';
import { CIUS_RO_CUSTOMIZATION_ID } from '../../mappings/index.ts';

const DIR = join(CORPUS_DIR, 'eInvoicing-EN16931/ubl/examples');
const NS = { cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2', cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2' };

const examples = existsSync(DIR)
  ? readdirSync(DIR).filter((f) => /^ubl-tc434-.*\.xml$/.test(f)).sort().map((f) => ({
    name: f,
    xml: readFileSync(join(DIR, f), 'utf8').replace(/<cbc:CustomizationID>[^<]*<\/cbc:CustomizationID>/, `<cbc:CustomizationID>${CIUS_RO_CUSTOMIZATION_ID}</cbc:CustomizationID>`),
  }))
  : [];

/** What the published rules say of a document, read with XPath (independently of the pack). */
function expected(xml: string): string[] {
  const doc = libxml.parseXml(xml);
  const text = (xp: string) => (doc.get(xp, NS) as { text(): string } | null)?.text().trim() ?? '';
  const out: string[] = [];
  if (!/[0-9]/.test(text('/*/cbc:ID'))) out.push('BR-RO-010');
  if (text('/*/cbc:DocumentCurrencyCode') !== 'RON' && text('/*/cbc:TaxCurrencyCode') !== 'RON') out.push('BR-RO-030');
  const party = (role: string) => `/*/cac:${role}/cac:Party/cac:PostalAddress`;
  if (!text(`${party('AccountingSupplierParty')}/cbc:StreetName`)) out.push('BR-RO-081');
  if (!text(`${party('AccountingCustomerParty')}/cbc:StreetName`)) out.push('BR-RO-082');
  if (!text(`${party('AccountingSupplierParty')}/cbc:CityName`)) out.push('BR-RO-091');
  if (!text(`${party('AccountingCustomerParty')}/cbc:CityName`)) out.push('BR-RO-092');
  const taxed = doc.find('//cac:ClassifiedTaxCategory/cbc:ID | /*/cac:AllowanceCharge/cac:TaxCategory/cbc:ID', NS)
    .some((n) => ['S', 'Z', 'E', 'AE', 'K', 'G', 'L', 'M'].includes((n as unknown as { text(): string }).text().trim()));
  const has = (xp: string) => doc.find(xp, NS).some((n) => (n as unknown as { text(): string }).text().trim() !== '');
  if (taxed && !has('/*/cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID | /*/cac:TaxRepresentativeParty/cac:PartyTaxScheme/cbc:CompanyID')) out.push('BR-RO-065');
  if (taxed && !has('/*/cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID | /*/cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID')) out.push('BR-RO-120');
  for (const a of doc.find('/*/cac:Delivery/cac:DeliveryLocation/cac:Address', NS)) {
    const sub = (name: string) => ((a as unknown as { get(x: string, n: object): { text(): string } | null }).get(`cbc:${name}`, NS)?.text().trim() ?? '') !== '';
    if (!sub('StreetName')) out.push('BR-RO-180');
    if (!sub('CityName')) out.push('BR-RO-201');
    if (!sub('CountrySubentity')) out.push('BR-RO-211');
  }
  return [...new Set(out)].sort();
}

describe('cius-ro pack on the official CEN UBL examples declared CIUS-RO', () => {
  it('finds the examples', () => expect(examples.length).toBeGreaterThanOrEqual(10));

  it.each(examples.map((e) => [e.name, e.xml]))('%s: the BR-RO findings the published rules give', (_name, xml) => {
    const found = validate(xml, { packs: ['cius-ro'], skipXsd: true }).findings;
    expect(found.filter((f) => f.rule === 'RULE-EVALUATION-ERROR')).toEqual([]);
    const structural = found.map((f) => f.rule).filter((r) => !/^BR-RO-L|^BR-RO-A/.test(r)).sort();
    expect([...new Set(structural)]).toEqual(expected(xml));
  });

  it.each(examples.map((e) => [e.name, e.xml]))('%s: compiled engine = saxon-js', (name, xml) => {
    const r = diffCase({ group: 'cius-ro', name, xml, packs: ['cius-ro'] });
    expect(r.same ? '' : describeDiff(r)).toBe('');
  });
});
