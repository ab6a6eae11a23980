/**
 * The MCP tools' input schemas are valid, self-contained JSON Schema (2020-12, what MCP clients
 * validate arguments with): every reference resolves inside the schema, and they accept what the
 * REST contract accepts and refuse what it refuses.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { inputSchemaOf, MCP_TOOLS, toolInputSchema, toolListing } from '../../../../services/gateway/mcp-tools.ts';
import * as documents from '../../../../services/documents/documents.contract.ts';

const ajv = new Ajv2020({ strict: false });

describe('MCP tool input schemas', () => {
  it('compile on their own, references included', () => {
    for (const tool of MCP_TOOLS) expect(() => ajv.compile(toolInputSchema(tool))).not.toThrow();
    expect(JSON.stringify(toolListing())).not.toContain('#/components/');
  });

  it('accept a send the contract accepts and refuse one it refuses', () => {
    const check = ajv.compile(inputSchemaOf(documents.send));
    expect(check({ type: 'invoice', format: 'ubl-xml', xml: '<Invoice/>' })).toBe(true);
    expect(check({ type: 'invoice', format: 'telepathy' })).toBe(false);
    expect(check({ format: 'json' })).toBe(false);
    const search = ajv.compile(inputSchemaOf(documents.search));
    expect(search({ filters: { $and: [{ number: 'INV-1' }, { direction: 'incoming' }] } })).toBe(true);
  });

  it('take an idempotency key on the tools that change something, checked like the header', () => {
    const send = ajv.compile(toolInputSchema(MCP_TOOLS.find((t) => t.name === 'send_document')!));
    expect(send({ type: 'invoice', format: 'ubl-xml', xml: '<Invoice/>', idempotencyKey: 'k-1' })).toBe(true);
    expect(send({ type: 'invoice', format: 'ubl-xml', xml: '<Invoice/>', idempotencyKey: '' })).toBe(false);
    expect(send({ type: 'invoice', format: 'ubl-xml', xml: '<Invoice/>', idempotencyKey: 'k'.repeat(256) })).toBe(false);
    for (const tool of MCP_TOOLS.filter((t) => t.readOnly)) expect(toolInputSchema(tool)).toEqual(inputSchemaOf(tool.input));
  });

  it('name the scope of each operation in the description', () => {
    const byName = Object.fromEntries(toolListing().map((t) => [t.name, t.description]));
    expect(byName.send_document).toMatch(/scope: send\)$/);
    expect(byName.get_document).toMatch(/GET \/v1\/documents\/:id \+ GET \/v1\/documents\/:id\/lifecycle; scope: documents\.read\)$/);
    expect(byName.move_lifecycle).toMatch(/scope: lifecycle\)$/);
  });
});
