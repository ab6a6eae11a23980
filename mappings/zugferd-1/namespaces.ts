/** ZUGFeRD 1.0 (2013/2014 schema): its own root namespace over the UN/CEFACT RABIE 12 / UDT 15 libraries. */
export const ZF1_RSM_NS = 'urn:ferd:CrossIndustryDocument:invoice:1p0';
export const ZF1_RAM_NS = 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12';
export const ZF1_UDT_NS = 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15';
/** The XMP extension schema of a ZUGFeRD 1.0 hybrid PDF (its `zf:` fields name the embedded file and profile). */
export const ZF1_XMP_NS = 'urn:ferd:pdfa:CrossIndustryDocument:invoice:1p0#';
/** GuidelineSpecifiedDocumentContextParameter/ID of each ZUGFeRD 1.0 profile (BT-24 as the document states it). */
export const ZF1_GUIDELINE_PREFIX = 'urn:ferd:CrossIndustryDocument:invoice:1p0:';
export const ZF1_PROFILES = ['basic', 'comfort', 'extended'] as const;
export type Zugferd1Profile = (typeof ZF1_PROFILES)[number];
