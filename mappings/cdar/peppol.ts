/**
 * How French platforms exchange CDAR status messages over Peppol (the French Peppol authority's
 * identifiers): the document type of the CDAR D22B lifecycle message, under the process of the
 * regulated (reform) exchange. Between two access points a French-reform invoice's lifecycle moves
 * travel in this form, not as Peppol Invoice Responses.
 */
import { DOCUMENT_SCHEME } from '../identifiers/peppol-network.ts';
import { CDAR_NS } from './namespaces.ts';

export const CDAR_PEPPOL_CUSTOMIZATION_ID = 'urn:peppol:france:billing:cdv:1.0';
export const CDAR_PEPPOL_DOCUMENT_TYPE_ID = `${CDAR_NS.rsm}::CrossDomainAcknowledgementAndResponse##${CDAR_PEPPOL_CUSTOMIZATION_ID}::D22B`;
export const CDAR_PEPPOL_DOCUMENT_TYPE = { scheme: DOCUMENT_SCHEME, value: CDAR_PEPPOL_DOCUMENT_TYPE_ID } as const;
/** The French reform's regulated exchange. */
export const FRANCE_REGULATED_PROCESS = { scheme: 'cenbii-procid-ubl', value: 'urn:peppol:france:billing:regulated' } as const;
