/**
 * The code lists of the French lifecycle message (CDAR "cycle de vie", XP Z12-012 / BR-FR-CDV v1.4.0):
 * status labels (MDT-106), the phase of each status (MDT-77), the referenced-document status
 * (MDT-88), the amount blocks (MDT-207) and the status-motif referential (MDT-113) with the codes each
 * status admits. One place for these lists: the writer, the reader and the tests read them here, and
 * the BR-FR-CDV rule pack (schematrons/br-fr-cdv) states the same lists as rules.
 */

/** MDT-3: the profile of a lifecycle message exchanged between platforms and copied to the PPF (v1.4.0). */
export const CDV_GUIDELINE = 'urn.cpro.gouv.fr:1p0:CDV:invoice';
/** MDT-3 of the older PPF-only copy; not accepted by BR-FR-CDV v1.4.0 unless the PPF is the only recipient. */
export const CDV_GUIDELINE_PPF = 'urn.cpro.gouv.fr:1p0:CDV:einvoicingF2';
/** MDT-2: the billing framework of a domestic B2B exchange. */
export const CDV_BUSINESS_PROCESS = 'REGULATED';
/** The PPF as a recipient (MDT-57t): its platform number in the 0238 scheme is 0000 from v1.4.0, role DFH. */
export const PPF_PARTY = { scheme: '0238', id: '0000', name: 'PPF', role: 'DFH' } as const;

/** MDT-77: 305 for the transmission phase (statuses set by the platforms), 23 for the processing phase. */
export type CdvPhase = '305' | '23';

export interface CdvStatus {
  code: string;
  /** MDT-106, the label as the official examples write it. */
  label: string;
  phase: CdvPhase;
  /**
   * MDT-88, only where the official Annex B examples attest the pairing (the element is optional and
   * BR-FR-CDV-CL-05 admits its absence): no guess for the others.
   */
  documentStatus?: string;
  /** MDT-207 amount blocks the status carries (spec: 206 MAP…, 209 MAJ, 211 MPA/RAP, 212 MEN). */
  amounts: readonly string[];
  /** A motif (MDT-113) is required (BR-FR-CDV-15). */
  reasonRequired: boolean;
  /** Reported to the tax administration: the PPF (DFH) is a recipient of the message. */
  toPpf: boolean;
}

const S = (code: string, label: string, phase: CdvPhase, documentStatus: string | undefined, amounts: string[] = [], reasonRequired = false, toPpf = false): CdvStatus =>
  ({ code, label, phase, ...(documentStatus ? { documentStatus } : {}), amounts, reasonRequired, toPpf });

export const CDV_STATUSES: Readonly<Record<string, CdvStatus>> = {
  200: S('200', 'Déposée', '305', '10', [], false, true),
  201: S('201', 'Émise_par_la_plateforme', '305', undefined),
  202: S('202', 'Reçue', '305', '43'),
  203: S('203', 'Mise_à_disposition', '305', '48'),
  204: S('204', 'Prise_en_charge', '23', '45'),
  205: S('205', 'Approuvée', '23', '1'),
  206: S('206', 'Approuvée_partiellement', '23', undefined, ['MAP', 'MAPTTC', 'MNA', 'MNATTC'], true),
  207: S('207', 'En_litige', '23', '46', [], true),
  208: S('208', 'Suspendue', '23', undefined, [], true),
  209: S('209', 'Complétée', '23', undefined, ['MAJ']),
  210: S('210', 'Refusée', '23', undefined, [], true, true),
  211: S('211', 'Paiement_transmis', '23', '47', ['MPA', 'RAP']),
  212: S('212', 'Encaissée', '23', '47', ['MEN'], false, true),
  213: S('213', 'Rejetée', '305', undefined, [], true, true),
};

/** MDT-105 codes BR-FR-CDV-CL-06 admits (v1.4.0). */
export const CDV_STATUS_CODES: readonly string[] = [
  '200', '201', '202', '203', '204', '205', '206', '207', '208', '209', '210', '211', '212', '213', '214',
  '220', '221', '224', '225', '226', '227', '228', '250', '251', '300', '301', '400', '401', '500', '501', '601',
];

/** MDT-113, the official status-motif referential (BR-FR-CDV-CL-09, v1.4.0). */
export const STATUS_REASON_CODES: readonly string[] = [
  'RETRAIT_MAN_SERV', 'ST_CT_NON_DECLAR', 'SUPPR_COMP_AVOIR', 'TRANSF_PMNT_REGIE', 'CONTACT_ACHTR',
  'NON_TRANSMISE', 'JUSTIF_ABS', 'ROUTAGE_ERR', 'AUTRE', 'COORD_BANC_ERR', 'TX_TVA_ERR', 'MONTANTTOTAL_ERR',
  'CALCUL_ERR', 'NON_CONFORME', 'DOUBLON', 'DEST_INC', 'DEST_ERR', 'TRANSAC_INC', 'EMMET_INC',
  'CONTRAT_TERM', 'DOUBLE_FACT', 'CMD_ERR', 'ADR_ERR', 'SIRET_ERR', 'CODE_ROUTAGE_ERR', 'REF_CT_ABSENT',
  'REF_ERR', 'PU_ERR', 'REM_ERR', 'QTE_ERR', 'ART_ERR', 'MODPAI_ERR', 'QUALITE_ERR', 'LIVR_INCOMP',
  'REJ_SEMAN', 'REJ_UNI', 'REJ_COH', 'REJ_ADR', 'REJ_CONT_B2G', 'REJ_REF_PJ', 'REJ_ASS_PJ', 'IRR_VIDE_F', 'IRR_TYPE_F',
  'IRR_SYNTAX', 'IRR_TAILLE_PJ', 'IRR_NOM_PJ', 'IRR_VID_PJ', 'IRR_EXT_DOC', 'IRR_TAILLE_F', 'IRR_ANTIVIRUS',
  'IRR_NOM_F'
];

/** The motifs a status admits where BR-FR-CDV-CL-09 restricts them (other statuses take the whole referential). */
export const REASONS_BY_STATUS: Readonly<Record<string, readonly string[]>> = {
  200: ['NON_TRANSMISE'],
  206: ['AUTRE', 'CMD_ERR', 'SIRET_ERR', 'CODE_ROUTAGE_ERR', 'REF_CT_ABSENT', 'REF_ERR', 'PU_ERR', 'REM_ERR', 'QTE_ERR', 'ART_ERR', 'MODPAI_ERR', 'QUALITE_ERR', 'LIVR_INCOMP'],
  207: ['AUTRE', 'COORD_BANC_ERR', 'TX_TVA_ERR', 'MONTANTTOTAL_ERR', 'CALCUL_ERR', 'NON_CONFORME', 'DOUBLON', 'DEST_INC', 'DEST_ERR', 'TRANSAC_INC', 'EMMET_INC', 'CONTRAT_TERM', 'DOUBLE_FACT', 'CMD_ERR', 'ADR_ERR', 'SIRET_ERR', 'CODE_ROUTAGE_ERR', 'REF_CT_ABSENT', 'REF_ERR', 'PU_ERR', 'REM_ERR', 'QTE_ERR', 'ART_ERR', 'MODPAI_ERR', 'QUALITE_ERR', 'LIVR_INCOMP'],
  208: ['JUSTIF_ABS', 'COORD_BANC_ERR', 'CMD_ERR', 'SIRET_ERR', 'CODE_ROUTAGE_ERR', 'REF_CT_ABSENT', 'REF_ERR'],
  210: ['TX_TVA_ERR', 'MONTANTTOTAL_ERR', 'CALCUL_ERR', 'NON_CONFORME', 'DOUBLON', 'DEST_ERR', 'TRANSAC_INC', 'EMMET_INC', 'CONTRAT_TERM', 'DOUBLE_FACT', 'CMD_ERR', 'ADR_ERR', 'REF_CT_ABSENT'],
  213: ['MONTANTTOTAL_ERR', 'CALCUL_ERR', 'DOUBLON', 'DEST_INC', 'ADR_ERR', 'REJ_SEMAN', 'REJ_UNI', 'REJ_COH', 'REJ_ADR', 'REJ_CONT_B2G', 'REJ_REF_PJ', 'REJ_ASS_PJ'],
  221: ['ROUTAGE_ERR'],
  501: ['IRR_VIDE_F', 'IRR_TYPE_F', 'IRR_SYNTAX', 'IRR_TAILLE_PJ', 'IRR_NOM_PJ', 'IRR_VID_PJ', 'IRR_EXT_DOC', 'IRR_TAILLE_F', 'IRR_ANTIVIRUS', 'IRR_NOM_F'],
};

/**
 * The motif a status takes when the caller gave only a text: the spec's lifecycle POST requires a
 * reason text for 206/207/208 but no code (208's `reasonCode=suspended` selects the status, it is not
 * a motif). 210 and 213 have no default: their code must come from the referential.
 */
export const DEFAULT_REASON: Readonly<Record<string, string>> = { 206: 'AUTRE', 207: 'AUTRE', 208: 'JUSTIF_ABS' };

/** MDT-207 amount-block codes (BR-FR-CDV-CL-11). */
export const CHARACTERISTIC_CODES: readonly string[] = ['MEN', 'MPA', 'RAP', 'ESC', 'RAB', 'REM', 'MAP', 'MAPTTC', 'MNA', 'MNATTC', 'CBB', 'DIV', 'DVA', 'MAJ'];

/** BT-3 invoice type codes of the French CIUS (BR-FR-04), which MDT-91 repeats. */
export const FR_DOCUMENT_TYPES: readonly string[] = ['380', '389', '393', '501', '386', '500', '384', '471', '472', '473', '261', '262', '381', '396', '502', '503'];

/** MDT-21 / MDT-40 / MDT-59 party roles (UNCL 3035 subset BR-FR-CDV-CL-02…04 admit). */
export const PARTY_ROLES: readonly string[] = ['BY', 'AB', 'DL', 'SE', 'SR', 'WK', 'PE', 'PR', 'II', 'IV', 'DFH'];
