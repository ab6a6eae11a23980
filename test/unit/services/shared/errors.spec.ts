import { DomainError, rethrowAsDomainError, decodeBase64Field } from '../../../../services/shared/errors.ts';
import { MappingError } from '../../../../mappings/index.ts';
import { InvalidXmlInputError } from '../../../../services/validation/engine/index.ts';

const caught = (fn: () => unknown): unknown => { try { fn(); } catch (err) { return err; } throw new Error('did not throw'); };

it('turns pure-layer errors into DomainErrors with their code and details, and rethrows anything else as is', () => {
  const mapping = caught(() => rethrowAsDomainError(new MappingError('INVALID_DATE', 'bad date', [{ field: 'document.issueDate', rule: 'date', message: 'not a date' }])));
  expect(mapping).toBeInstanceOf(DomainError);
  expect(mapping).toMatchObject({ type: 'INVALID_DATE', message: 'bad date', data: { details: [{ field: 'document.issueDate', rule: 'date', message: 'not a date' }] } });
  expect(caught(() => rethrowAsDomainError(new InvalidXmlInputError('DOCTYPE refused', [{ field: 'xml', rule: 'doctype', message: 'no DTD' }])))).toMatchObject({ type: 'INVALID_REQUEST' });
  expect(caught(() => rethrowAsDomainError(new MappingError('SOMETHING_ELSE', 'x', [])))).toMatchObject({ type: 'INVALID_REQUEST' });
  const plain = new TypeError('boom');
  expect(caught(() => rethrowAsDomainError(plain))).toBe(plain);
  const domain = new DomainError('RESOURCE_NOT_FOUND', 'gone');
  expect(caught(() => rethrowAsDomainError(domain))).toBe(domain);
});

it('decodes base64 fields and names the field when it is not base64', () => {
  expect(decodeBase64Field(Buffer.from('hello').toString('base64'), 'file.content').toString()).toBe('hello');
  expect(caught(() => decodeBase64Field('not base64!', 'file.content'))).toMatchObject({ type: 'INVALID_REQUEST', data: { details: [{ field: 'file.content', rule: 'base64' }] } });
});
