export const CII_RSM_NS = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';
export const CII_RAM_NS = 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100';
export const CII_UDT_NS = 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100';
export const CII_QDT_NS = 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100';
