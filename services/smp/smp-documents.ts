/**
 * The SMP 1.x read interface's documents (Peppol SMP 1.4, busdox namespaces): the service group of
 * a participant and its signed service metadata per document type, signed the way the
 * specification says (enveloped XMLDSig over the whole document, RSA-SHA256, SHA-256 digest,
 * inclusive C14N 1.0, KeyInfo with the subject name and certificate). Built with xmlbuilder2,
 * signed with xml-crypto. Pure apart from the key it is given.
 */
import { MLS_DOCUMENT_TYPE_ID, MLS_PROCESS } from '../../mappings/peppol/mls.ts';
import { INVOICE_RESPONSE_DOCUMENT_TYPE_ID, INVOICE_RESPONSE_PROCESS } from '../../mappings/peppol/invoice-response.ts';
import { CDAR_PEPPOL_DOCUMENT_TYPE_ID, FRANCE_REGULATED_PROCESS } from '../../mappings/cdar/index.ts';
import { create } from 'xmlbuilder2';
import { SignedXml } from 'xml-crypto';
import type { SmpKeys } from './smp-keys.ts';
import { AS4_TRANSPORT_PROFILE, BILLING_DOCUMENT_TYPES, BILLING_PROCESS, DOCUMENT_SCHEME, ORDER_DOCUMENT_TYPE_ID, ORDER_PROCESS, PARTICIPANT_SCHEME, serviceMetadataUrl } from '../../mappings/identifiers/peppol-network.ts';

const SMP_NS = 'http://busdox.org/serviceMetadata/publishing/1.0/';
const IDS_NS = 'http://busdox.org/transport/identifiers/1.0/';
const WSA_NS = 'http://www.w3.org/2005/08/addressing';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';

/** What a registered company receives: Peppol BIS Billing 3.0 documents, Invoice Responses to what it sent, and Peppol BIS Order 3.0 purchase orders. */
export const RECEIVED_DOCUMENT_TYPES: readonly string[] = [...Object.values(BILLING_DOCUMENT_TYPES), INVOICE_RESPONSE_DOCUMENT_TYPE_ID, ORDER_DOCUMENT_TYPE_ID];

/** French participant schemes (SIRENE, SIRET, the French electronic address): they also receive the French lifecycle messages (CDAR). */
const FRENCH_SCHEMES = ['0002:', '0009:', '0225:'];

/** What one registered company receives: the common types, plus CDAR for a French participant. */
export function receivedDocumentTypes(participantId: string): readonly string[] {
  return FRENCH_SCHEMES.some((s) => participantId.startsWith(s)) ? [...RECEIVED_DOCUMENT_TYPES, CDAR_PEPPOL_DOCUMENT_TYPE_ID] : RECEIVED_DOCUMENT_TYPES;
}

/** What our service provider id (SPID, 0242:…) receives: Peppol MLS, under the MLS process. */
export const SPID_DOCUMENT_TYPES: readonly string[] = [MLS_DOCUMENT_TYPE_ID];

/** The process each published document type is registered under. */
export function processOf(documentTypeId: string): { scheme: string; value: string } {
  if (documentTypeId === MLS_DOCUMENT_TYPE_ID) return MLS_PROCESS;
  if (documentTypeId === INVOICE_RESPONSE_DOCUMENT_TYPE_ID) return INVOICE_RESPONSE_PROCESS;
  if (documentTypeId === CDAR_PEPPOL_DOCUMENT_TYPE_ID) return FRANCE_REGULATED_PROCESS;
  if (documentTypeId === ORDER_DOCUMENT_TYPE_ID) return ORDER_PROCESS;
  return BILLING_PROCESS;
}

export function serviceGroupXml(smpBaseUrl: string, participantId: string, documentTypes: readonly string[] = RECEIVED_DOCUMENT_TYPES): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8' })
    .ele(SMP_NS, 'smp:ServiceGroup').att('xmlns:id', IDS_NS);
  doc.ele(IDS_NS, 'id:ParticipantIdentifier').att('scheme', PARTICIPANT_SCHEME).txt(participantId);
  const refs = doc.ele(SMP_NS, 'smp:ServiceMetadataReferenceCollection');
  for (const type of documentTypes) refs.ele(SMP_NS, 'smp:ServiceMetadataReference').att('href', serviceMetadataUrl(smpBaseUrl, participantId, type));
  return doc.end({ prettyPrint: false });
}

export interface EndpointFacts {
  /** The access point's AS4 URL. */
  address: string;
  serviceDescription: string;
  technicalContactUrl: string;
}

export function signedServiceMetadataXml(participantId: string, documentTypeId: string, endpoint: EndpointFacts, keys: SmpKeys, process: { scheme: string; value: string } = processOf(documentTypeId)): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' })
    .ele(SMP_NS, 'smp:SignedServiceMetadata').att('xmlns:id', IDS_NS).att('xmlns:wsa', WSA_NS);
  const info = root.ele(SMP_NS, 'smp:ServiceMetadata').ele(SMP_NS, 'smp:ServiceInformation');
  info.ele(IDS_NS, 'id:ParticipantIdentifier').att('scheme', PARTICIPANT_SCHEME).txt(participantId);
  info.ele(IDS_NS, 'id:DocumentIdentifier').att('scheme', DOCUMENT_SCHEME).txt(documentTypeId);
  const processEl = info.ele(SMP_NS, 'smp:ProcessList').ele(SMP_NS, 'smp:Process');
  processEl.ele(IDS_NS, 'id:ProcessIdentifier').att('scheme', process.scheme).txt(process.value);
  const ep = processEl.ele(SMP_NS, 'smp:ServiceEndpointList').ele(SMP_NS, 'smp:Endpoint').att('transportProfile', AS4_TRANSPORT_PROFILE);
  ep.ele(WSA_NS, 'wsa:EndpointReference').ele(WSA_NS, 'wsa:Address').txt(endpoint.address);
  ep.ele(SMP_NS, 'smp:RequireBusinessLevelSignature').txt('false');
  ep.ele(SMP_NS, 'smp:Certificate').txt(keys.apCertificateDer);
  ep.ele(SMP_NS, 'smp:ServiceDescription').txt(endpoint.serviceDescription);
  ep.ele(SMP_NS, 'smp:TechnicalContactUrl').txt(endpoint.technicalContactUrl);
  const unsigned = root.end({ prettyPrint: false });

  const cert = keys.certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
  const sig = new SignedXml({
    privateKey: keys.privateKeyPem,
    publicCert: keys.certificatePem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: C14N,
    getKeyInfoContent: (args) => {
      const p = args?.prefix ? `${args.prefix}:` : '';
      return `<${p}X509Data><${p}X509SubjectName>${escapeXml(keys.subjectName)}</${p}X509SubjectName><${p}X509Certificate>${cert}</${p}X509Certificate></${p}X509Data>`;
    },
  });
  sig.addReference({ xpath: '/*', transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', C14N], digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256', isEmptyUri: true });
  sig.computeSignature(unsigned, { prefix: 'ds', location: { reference: '/*', action: 'append' } });
  return sig.getSignedXml();
}

const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
