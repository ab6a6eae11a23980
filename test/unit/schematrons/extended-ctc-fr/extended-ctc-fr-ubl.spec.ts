/**
 * The extended-ctc-fr pack for UBL (schematrons/extended-ctc-fr/1.4.0/extended-ctc-fr-ubl.sch), rule by rule: the
 * base invoice of test/support/extended-ctc-fr-invoices.ts (sub-lines, document allowance and charge, item
 * attribute, incoterms, XML attachment) is clean, and each mutation there breaks one rule of the EXTENDED-CTC-FR
 * profile and fires exactly the listed rules (the rule meant, and what the same change necessarily breaks beside it).
 * The same lists were checked against the official FNFE-MPE 1.4.0 rules (test/conformance/extended-ctc-fr-oracle.external.ts).
 */
import { describeExtendedCtcFrPack } from './pack-runner.ts';

describeExtendedCtcFrPack('ubl', [
  ['the VAT breakdown says Z where the lines, allowance and charge say S', ['BR-FREXT-S-01', 'BR-FREXT-Z-01', 'BR-FREXT-Z-08', 'BR-FREXT-Z-08ini:warning', 'BR-FREXT-Z-08rev:warning', 'BR-Z-09']],
  ['a VAT breakdown Z (BR-FREXT-Z) of 10.00 that nothing uses', ['BR-FREXT-Z-01', 'BR-FREXT-Z-08', 'BR-FREXT-Z-08ini:warning', 'BR-FREXT-Z-08rev:warning']],
  ['a VAT breakdown E (BR-FREXT-E) of 10.00 that nothing uses', ['BR-E-10', 'BR-FREXT-E-01', 'BR-FREXT-E-08', 'BR-FREXT-E-08ini:warning', 'BR-FREXT-E-08rev:warning']],
  ['a VAT breakdown AE (BR-FREXT-AE) of 10.00 that nothing uses', ['BR-AE-10', 'BR-FREXT-AE-01', 'BR-FREXT-AE-08', 'BR-FREXT-AE-08ini:warning', 'BR-FREXT-AE-08rev:warning']],
  ['a VAT breakdown K (BR-FREXT-IC) of 10.00 that nothing uses', ['BR-FREXT-IC-01', 'BR-FREXT-IC-08', 'BR-FREXT-IC-08ini:warning', 'BR-FREXT-IC-08rev:warning', 'BR-IC-10', 'BR-IC-11', 'BR-IC-12']],
  ['a VAT breakdown G (BR-FREXT-G) of 10.00 that nothing uses', ['BR-FREXT-G-01', 'BR-FREXT-G-08', 'BR-FREXT-G-08ini:warning', 'BR-FREXT-G-08rev:warning', 'BR-G-10']],
  ['a VAT breakdown O (BR-FREXT-O) of 10.00 that nothing uses', ['BR-FREXT-O-01', 'BR-FREXT-O-08', 'BR-FREXT-O-08ini:warning', 'BR-FREXT-O-08rev:warning', 'BR-O-10']],
  ['a VAT breakdown L (BR-FREXT-AF) of 10.00 that nothing uses', ['BR-FREXT-AF-01', 'BR-FREXT-AF-08', 'BR-FREXT-AF-08ini:warning', 'BR-FREXT-AF-08rev:warning']],
  ['a VAT breakdown M (BR-FREXT-AG) of 10.00 that nothing uses', ['BR-FREXT-AG-01', 'BR-FREXT-AG-08', 'BR-FREXT-AG-08ini:warning', 'BR-FREXT-AG-08rev:warning']],
  ['the S taxable amount is 146.00 instead of 145.00', ['BR-FREXT-S-08', 'BR-FREXT-S-08ini:warning', 'BR-FREXT-S-08rev:warning', 'BR-FREXT-S-09']],
  ['the S breakdown carries an exemption reason the lines do not', ['BR-FREXT-S-08rev:warning']],
  ['two S 20 % breakdowns, one per exemption reason, each matching its own lines (allowed; the total per rate differs)', ['BR-FREXT-S-08ini:warning', 'BR-FREXT-S-08ini:warning']],
  ['the S VAT amount is 30.00 instead of 145.00 × 20 %', ['BR-CO-14', 'BR-FREXT-S-09']],
  ['BT-106 is 151.00', ['BR-FREXT-CO-10']],
  ['BT-107 is 11.00', ['BR-FREXT-CO-11']],
  ['BT-108 is 6.00', ['BR-FREXT-CO-12']],
  ['BT-109 is 146.00', ['BR-FREXT-CO-13', 'BR-FREXT-CO-15']],
  ['BT-112 is 175.00', ['BR-CO-16', 'BR-FREXT-CO-15']],
  ['line 1 has no quantity', ['BR-FREXT-22', 'BR-FREXT-23']],
  ['line 1 has a quantity without unit', ['BR-FREXT-23']],
  ['sub-line 2.1 (DETAIL) has no net amount', ['BR-FREXT-08', 'BR-FREXT-24', 'BR-FREXT-CO-10', 'BR-FREXT-CO-13', 'BR-FREXT-S-08', 'BR-FREXT-S-08ini:warning', 'BR-FREXT-S-08rev:warning']],
  ['line 1 has no net price', ['BR-FREXT-26']],
  ['line 1 has no VAT category', ['BR-FREXT-CO-04', 'BR-FREXT-S-08', 'BR-FREXT-S-08ini:warning', 'BR-FREXT-S-08rev:warning', 'UBL-FREXT-SR-48']],
  ['line 1 has two VAT categories', ['UBL-FREXT-SR-48']],
  ['line 2 has the unknown subtype GRP', ['BR-FREXT-05']],
  ['sub-line 2.1 names its parent but has no subtype', ['BR-FREXT-06', 'BR-FREXT-08', 'BR-FREXT-CO-10', 'BR-FREXT-CO-13', 'BR-FREXT-S-08', 'BR-FREXT-S-08ini:warning', 'BR-FREXT-S-08rev:warning']],
  ['GROUP line 2 says 60.00 but its sub-line is 50.00', ['BR-FREXT-08']],
  ['sub-line 2.1 names the missing parent line 9', ['BR-FREXT-08', 'BR-FREXT-11']],
  ['GROUP line 2 has a GROUP sub-line 2.2 without net amount', ['BR-FREXT-12']],
  ['an item attribute without name or name code', ['BR-FREXT-54-1']],
  ['an item attribute with both a value and a measured value', ['BR-FREXT-54-2']],
  ['an item attribute code outside UNTDID 6313', ['BR-FREXT-04']],
  ['a charge reason code outside UNTDID 7161', ['BR-FREXT-CL-20']],
  ['a tax charge (list 5153) with a code outside UNTDID 5153', ['BR-FREXT-CL-20-TAX']],
  ['a tax charge (list 5153) with a 5153 code (allowed)', []],
  ['a charge reason code list 9999', ['BR-FREXT-CL-20-LISTID']],
  ['a ZIP attachment', ['BR-FREXT-CL-24']],
  ['the delivery terms code XXX', ['BR-FREXT-CL-27']],
  ['delivery terms with special terms', ['UBL-FREXT-CR-410:warning']],
  ['a tax exchange rate with an operator code', ['CII-FREXT-CR-490:warning']],
  ['line 1 delivery terms with a loss risk', ['UBL-FREXT-CR-645:warning']],
  ['a preceding invoice reference with two invoice references', ['UBL-SR-06']],
  ['a preceding invoice reference without invoice number', ['BR-55', 'UBL-SR-07']],
  ['no due date for a positive amount due', ['BR-CO-25']],
], [
  // the EN 16931 rules the profile relaxes (left out of the pack; the profile's own rules take their place)
  'BR-22', 'BR-23', 'BR-24', 'BR-26', 'BR-27', 'BR-28', 'BR-54', 'BR-AE-08', 'BR-AF-01', 'BR-AF-08',
  'BR-AG-08', 'BR-CL-20', 'BR-CL-24', 'BR-CO-04', 'BR-CO-10', 'BR-CO-11', 'BR-CO-12', 'BR-CO-13', 'BR-CO-15', 'BR-CO-17',
  'BR-E-01', 'BR-E-08', 'BR-G-01', 'BR-G-08', 'BR-IC-01', 'BR-IC-08', 'BR-O-01', 'BR-O-02', 'BR-O-03', 'BR-O-04',
  'BR-O-08', 'BR-O-11', 'BR-O-12', 'BR-O-13', 'BR-O-14', 'BR-S-01', 'BR-S-08', 'BR-S-09', 'BR-S-10', 'BR-Z-01',
  'BR-Z-08', 'BR-Z-10',
]);
