import { participantAliases } from '../../../mappings/identifiers/peppol-id.ts';

describe('participantAliases: one participant, the identifiers it is found under', () => {
  it('Belgium: 0208 enterprise number and 9925 VAT number, both ways', () => {
    expect(participantAliases('9925:BE0403170701')).toEqual(['9925:BE0403170701', '0208:0403170701']);
    expect(participantAliases('9925:be0403170701')).toEqual(['9925:be0403170701', '0208:0403170701']);
    expect(participantAliases('0208:0403170701')).toEqual(['0208:0403170701', '9925:BE0403170701']);
  });

  it('France: the SIREN under 0009, 0002, 0225 (with its suffixes) and the VAT number under 9957', () => {
    expect(participantAliases('0225:120027016_12002701600357')).toEqual(['0225:120027016_12002701600357', '0009:120027016', '0002:120027016', '0225:120027016']);
    expect(participantAliases('9957:FR12120027016')).toEqual(['9957:FR12120027016', '0009:120027016', '0002:120027016', '0225:120027016']);
    expect(participantAliases('0009:120027016')).toEqual(['0009:120027016', '0002:120027016', '0225:120027016']);
  });

  it('other schemes and malformed ids stand alone', () => {
    expect(participantAliases('9930:DE123456789')).toEqual(['9930:DE123456789']);
    expect(participantAliases('nonsense')).toEqual(['nonsense']);
  });
});
