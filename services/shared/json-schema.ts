/**
 * fastest-validator rules → JSON Schema: how a contract's params appear in the OpenAPI document
 * (and how a contract describes another action's params, e.g. a batch of sends). Pure.
 */
import type { JsonSchema } from './contract.ts';

type Rule = Record<string, unknown> & { type?: string; optional?: boolean };

function normalize(rule: unknown): Rule {
  if (typeof rule === 'string') {
    const [type, ...flags] = rule.split('|');
    return { type, ...(flags.includes('optional') ? { optional: true } : {}) };
  }
  return (rule ?? {}) as Rule;
}

/** fastest-validator rule → JSON Schema (the subset our contracts use). */
export function ruleToJsonSchema(input: unknown): JsonSchema {
  const rule = normalize(input);
  // A free-form object the validator leaves to the domain (the JSON document, a filter tree) states its
  // documented shape itself: `{ type: 'object', openapi: <JSON Schema> }`.
  if (rule.openapi && typeof rule.openapi === 'object') return rule.openapi as JsonSchema;
  const out: JsonSchema = {};
  switch (rule.type) {
    case 'string':
      out.type = 'string';
      if (rule.min !== undefined) out.minLength = rule.min;
      if (rule.max !== undefined) out.maxLength = rule.max;
      if (rule.pattern) out.pattern = rule.pattern instanceof RegExp ? rule.pattern.source : rule.pattern;
      if (rule.enum) out.enum = rule.enum;
      break;
    case 'email':
      Object.assign(out, { type: 'string', format: 'email' }, rule.max !== undefined ? { maxLength: rule.max } : {});
      break;
    case 'url':
      Object.assign(out, { type: 'string', format: 'uri' });
      break;
    case 'uuid':
      Object.assign(out, { type: 'string', format: 'uuid' });
      break;
    case 'date':
      Object.assign(out, { type: 'string', format: 'date-time' });
      break;
    case 'number':
      out.type = rule.integer ? 'integer' : 'number';
      if (rule.min !== undefined) out.minimum = rule.min;
      if (rule.max !== undefined) out.maximum = rule.max;
      if (rule.positive) out.exclusiveMinimum = 0;
      break;
    case 'boolean':
      out.type = 'boolean';
      break;
    case 'enum':
      out.enum = rule.values;
      break;
    case 'equal':
      out.const = rule.value;
      break;
    case 'array':
      out.type = 'array';
      if (rule.items !== undefined) out.items = ruleToJsonSchema(rule.items);
      if (rule.min !== undefined) out.minItems = rule.min;
      if (rule.max !== undefined) out.maxItems = rule.max;
      if (rule.unique) out.uniqueItems = true;
      break;
    case 'object':
      Object.assign(out, rule.props ? objectSchema(rule.props as Record<string, unknown>) : { type: 'object', additionalProperties: true });
      break;
    case 'multi':
      out.oneOf = (rule.rules as unknown[]).map(ruleToJsonSchema);
      break;
    default:
      break;
  }
  // `nullable: true`: null is accepted too (a PATCH clearing a member).
  if (rule.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  }
  if (rule.default !== undefined && typeof rule.default !== 'function') out.default = rule.default;
  if (typeof rule.description === 'string') out.description = rule.description;
  // A request field being retired (spec, Versioning §4): `{ type: …, deprecated: true }` in the contract.
  if (rule.deprecated === true) out.deprecated = true;
  return out;
}

export function objectSchema(props: Record<string, unknown>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, rule] of Object.entries(props)) {
    if (name.startsWith('$$')) continue;
    properties[name] = ruleToJsonSchema(rule);
    const r = normalize(rule);
    if (!r.optional && r.default === undefined) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}
