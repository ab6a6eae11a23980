/**
 * The AS4 vocabulary: namespace URIs, the algorithm URIs the Peppol profile fixes, and the ebMS
 * error codes (phase4's EEbmsError list, peppol-transport.md §1.9) with whether a sender should
 * try again. Namespaces are matched by URI everywhere, never by prefix (Holodeck binds odd ones).
 */
export const NS = {
  S12: 'http://www.w3.org/2003/05/soap-envelope',
  EB: 'http://docs.oasis-open.org/ebxml-msg/ebms/v3.0/ns/core/200704/',
  EBBP: 'http://docs.oasis-open.org/ebxml-bp/ebbp-signals-2.0',
  WSSE: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd',
  WSSE11: 'http://docs.oasis-open.org/wss/oasis-wss-wssecurity-secext-1.1.xsd',
  WSU: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd',
  DS: 'http://www.w3.org/2000/09/xmldsig#',
  XENC: 'http://www.w3.org/2001/04/xmlenc#',
  XENC11: 'http://www.w3.org/2009/xmlenc11#',
  EC: 'http://www.w3.org/2001/10/xml-exc-c14n#',
} as const;

export const ALG = {
  RSA_SHA256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  SHA256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  EXC_C14N: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  ATTACHMENT_CONTENT_SIGNATURE: 'http://docs.oasis-open.org/wss/oasis-wss-SwAProfile-1.1#Attachment-Content-Signature-Transform',
  ATTACHMENT_CIPHERTEXT: 'http://docs.oasis-open.org/wss/oasis-wss-SwAProfile-1.1#Attachment-Ciphertext-Transform',
  ATTACHMENT_CONTENT_ONLY: 'http://docs.oasis-open.org/wss/oasis-wss-SwAProfile-1.1#Attachment-Content-Only',
  AES128_GCM: 'http://www.w3.org/2009/xmlenc11#aes128-gcm',
  RSA_OAEP: 'http://www.w3.org/2009/xmlenc11#rsa-oaep',
  MGF1_SHA256: 'http://www.w3.org/2009/xmlenc11#mgf1sha256',
  X509V3: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3',
  BASE64_BINARY: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary',
  ENCRYPTED_KEY_TOKEN: 'http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#EncryptedKey',
} as const;

export const PEPPOL = {
  AGREEMENT: 'urn:fdc:peppol.eu:2017:agreements:tia:ap_provider',
  PARTY_TYPE: 'urn:fdc:peppol.eu:2017:identifiers:ap',
  INITIATOR: 'http://docs.oasis-open.org/ebxml-msg/ebms/v3.0/ns/core/200704/initiator',
  RESPONDER: 'http://docs.oasis-open.org/ebxml-msg/ebms/v3.0/ns/core/200704/responder',
  DEFAULT_MPC: 'http://docs.oasis-open.org/ebxml-msg/ebms/v3.0/ns/core/200704/defaultMPC',
  PARTICIPANT_SCHEME: 'iso6523-actorid-upis',
  DOCUMENT_SCHEME: 'busdox-docid-qns',
  PROCESS_SCHEME: 'cenbii-procid-ubl',
  SEAT_ID: /^P[A-Z]{2}[0-9]{6}$/,
  NOT_SERVICED: 'PEPPOL:NOT_SERVICED',
} as const;

export type EbmsCode =
  | 'EBMS:0001' | 'EBMS:0003' | 'EBMS:0004' | 'EBMS:0007' | 'EBMS:0009' | 'EBMS:0010'
  | 'EBMS:0101' | 'EBMS:0102' | 'EBMS:0103' | 'EBMS:0202' | 'EBMS:0301' | 'EBMS:0302' | 'EBMS:0303' | 'EBMS:4001';

export const EBMS_ERRORS: Record<EbmsCode, { shortDescription: string; category: string; permanent: boolean }> = {
  'EBMS:0001': { shortDescription: 'ValueNotRecognized', category: 'Content', permanent: true },
  'EBMS:0003': { shortDescription: 'ValueInconsistent', category: 'Content', permanent: true },
  'EBMS:0004': { shortDescription: 'Other', category: 'Content', permanent: true },
  'EBMS:0007': { shortDescription: 'MimeInconsistency', category: 'Unpackaging', permanent: true },
  'EBMS:0009': { shortDescription: 'InvalidHeader', category: 'Unpackaging', permanent: true },
  'EBMS:0010': { shortDescription: 'ProcessingModeMismatch', category: 'Processing', permanent: true },
  'EBMS:0101': { shortDescription: 'FailedAuthentication', category: 'Processing', permanent: true },
  'EBMS:0102': { shortDescription: 'FailedDecryption', category: 'Processing', permanent: true },
  'EBMS:0103': { shortDescription: 'PolicyNoncompliance', category: 'Processing', permanent: true },
  // A delivery failure on the receiver's side (its storage, its back end) may pass: try again.
  'EBMS:0202': { shortDescription: 'DeliveryFailure', category: 'Communication', permanent: false },
  'EBMS:0301': { shortDescription: 'MissingReceipt', category: 'Communication', permanent: false },
  'EBMS:0302': { shortDescription: 'InvalidReceipt', category: 'Communication', permanent: false },
  'EBMS:0303': { shortDescription: 'DecompressionFailure', category: 'Communication', permanent: true },
  // phase4's "probably delivered, but you have no receipt": never re-send, flag it.
  'EBMS:4001': { shortDescription: 'DuplicateDetected', category: 'Content', permanent: true },
};

/** A failure of an AS4 exchange, in the ebMS code the other side gets (or we got). */
export class As4Error extends Error {
  readonly code: EbmsCode;
  /** ErrorDetail, e.g. PEPPOL:NOT_SERVICED. */
  readonly detail: string | undefined;
  constructor(code: EbmsCode, message: string, detail?: string) {
    super(message);
    this.name = 'As4Error';
    this.code = code;
    this.detail = detail;
  }
}

export const isEbmsCode = (code: string): code is EbmsCode => code in EBMS_ERRORS;
