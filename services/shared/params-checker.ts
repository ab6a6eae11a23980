/**
 * Checks one item of a batch against an action's own params schema, the way the gateway checks a
 * single call: a bad item fails alone, with the same codes and details a single call would get.
 */
import FastestValidator from 'fastest-validator';
import { DomainError } from './errors.ts';

type Check = (value: unknown) => true | Array<{ type: string; field: string; message?: string }>;

// fastest-validator is CommonJS with an ES-style default export in its typings.
const Validator = FastestValidator as unknown as new () => { compile(schema: unknown): Check };

export function compileParamsChecker<P>(schema: unknown): (item: unknown) => P {
  let check: Check | undefined;
  return (item) => {
    check ??= new Validator().compile(schema);
    // The validator fills defaults and converts in place: each item gets its own copy.
    const copy = { ...(item as Record<string, unknown>) };
    const result = check(copy);
    if (result === true) return copy as P;
    const details = result.map((e) => ({ field: e.field, rule: e.type, message: e.message ?? `${e.field} is invalid` }));
    const code = result[0]?.type === 'required' ? 'MISSING_FIELD' : result[0]?.type === 'enumValue' ? 'INVALID_ENUM' : 'INVALID_REQUEST';
    throw new DomainError(code, details.map((d) => d.message).join('; '), { details });
  };
}
