/**
 * countryOfVatParticipant: a participant id whose identifier is a whole VAT number under its country's
 * VAT scheme names that country (routing asks a connector of that country first); national
 * registration numbers and foreign schemes name none.
 */
import { countryOfVatParticipant } from '../../../../mappings/index.ts';

describe('countryOfVatParticipant', () => {
  it.each([
    ['9947:RO14399840', 'RO'], ['iso6523-actorid-upis::9947:ro14399840', 'RO'], ['9930:DE123456789', 'DE'], ['9933:EL123456789', 'GR'],
  ])('%s → %s', (id, country) => expect(countryOfVatParticipant(id)).toBe(country));

  it.each([
    ['0208:0403170701'], // Belgian enterprise number: national, not a VAT number
    ['0009:303265045'], // French SIREN
    ['9947:DE123456789'], // a German VAT number under the Romanian scheme
    ['9947:RO1'], // not the Romanian VAT shape
    ['not-a-participant'],
  ])('%s → undefined', (id) => expect(countryOfVatParticipant(id)).toBeUndefined());
});
