import { ruleToJsonSchema, objectSchema } from '../../../../services/gateway/openapi.ts';
import { selectServices } from '../../../../services/index.ts';

it('translates fastest-validator rules to JSON Schema', () => {
  expect(ruleToJsonSchema({ type: 'string', min: 1, max: 64, default: 'quickstart' })).toEqual({ type: 'string', minLength: 1, maxLength: 64, default: 'quickstart' });
  expect(ruleToJsonSchema({ type: 'number', integer: true, min: 1, max: 100, convert: true })).toEqual({ type: 'integer', minimum: 1, maximum: 100 });
  expect(ruleToJsonSchema({ type: 'array', items: { type: 'enum', values: ['a', 'b'] }, unique: true })).toEqual({ type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true });
  expect(ruleToJsonSchema('string|optional')).toEqual({ type: 'string' });
  expect(objectSchema({ $$strict: 'remove', a: 'string', b: { type: 'email', optional: true } })).toEqual({
    type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', format: 'email' } }, required: ['a'],
  });
});

it('SERVICES selects known services and names unknown ones', () => {
  expect(selectServices(undefined).map(([n]) => n)).toEqual(expect.arrayContaining(['gateway', 'tenancy', 'sandbox', 'health']));
  expect(selectServices(['gateway']).map(([n]) => n)).toEqual(['gateway']);
  expect(() => selectServices(['gateway', 'nope'])).toThrow(/unknown services: nope/);
});
