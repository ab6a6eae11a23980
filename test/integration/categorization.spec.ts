/**
 * Categorization through the API: tag groups and tags (create, list, rename, delete), tags on
 * documents, companies and partners with document.updated through the documents outbox, and tag
 * suggestions learned from the organization's own tagging history (none without one).
 */
import { issuers, type Issuers } from '../support/issuers.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

const telecom = { name: 'Orange Telecom SA', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
const stationer = { name: 'Bureau Papeterie SPRL', vatNumber: 'BE0202239951', address: { street: 'Rue Haute 5', city: 'Liège', postalCode: '4000', country: 'BE' } };
const buyerParty = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };

let t: TestApp;
let supplier: Issuers;
beforeAll(async () => {
  t = await startTestApp();
  supplier = await issuers(t.baseUrl, [telecom.vatNumber, stationer.vatNumber], 'supplier');
});
afterAll(async () => { await t.stop(); });

type Org = Awaited<ReturnType<typeof bootstrap>>;
let n = 0;
/** An invoice from `from` with one line, received by `to`; answers the recipient's document id. */
async function receive(to: Org, from: typeof telecom, line: string, unitPrice: number): Promise<string> {
  const number = `CAT-${Date.now()}-${++n}`;
  const res = await api(t.baseUrl, 'POST', '/v1/documents/send', {
    key: supplier.apiKey, headers: supplier.as(from.vatNumber),
    body: { type: 'invoice', format: 'json', to: to.company.peppolId, document: { number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO', seller: from, buyer: buyerParty, lines: [{ description: line, quantity: 1, unit: 'C62', unitPrice, vatRate: 21 }] } },
  });
  expect(res.status).toBe(201);
  const until = Date.now() + 15_000;
  for (;;) {
    const found = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: to.apiKey, body: { filters: { number, direction: 'incoming' } } });
    if (found.body.data.length) return found.body.data[0].id;
    if (Date.now() > until) throw new Error('not received');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const post = (key: string, path: string, body: Record<string, unknown>) => api(t.baseUrl, 'POST', path, { key, body });
const group = async (org: Org, name: string) => (await post(org.apiKey, '/v1/categorization/groups', { name })).body.id as string;
const tag = async (org: Org, groupId: string, name: string) => (await post(org.apiKey, `/v1/categorization/groups/${groupId}/tags`, { name })).body.id as string;
const attach = (org: Org, objectId: string, tagId: string, objectType = 'document') => post(org.apiKey, `/v1/categorization/objects/${objectId}/tags`, { tagId, objectType });
const suggest = (org: Org, objectId: string, context?: Record<string, unknown>) => post(org.apiKey, '/v1/categorization/objects/tags/auto', { objectId, objectType: 'document', ...(context ? { context } : {}) });

async function updatedEvents(org: Org, documentId: string, count: number) {
  const until = Date.now() + 10_000;
  let last: Array<{ data: { documentId: string; changes: Record<string, any> } }> = [];
  while (Date.now() < until) {
    const res = await api(t.baseUrl, 'GET', '/v1/events?type=document.updated&limit=100', { key: org.apiKey });
    last = res.body.data.filter((e: { data: { documentId: string } }) => e.data.documentId === documentId);
    if (last.length >= count) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

describe('tag groups and tags', () => {
  it('create, list, rename, delete', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'tags-crud' });
    const created = await post(org.apiKey, '/v1/categorization/groups', { name: 'Cost centre' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^tgrp_/), name: 'Cost centre' });
    const g = created.body.id;
    const other = await group(org, 'Project');
    expect((await api(t.baseUrl, 'GET', '/v1/categorization/groups', { key: org.apiKey })).body).toMatchObject({ data: [{ id: other }, { id: g }], hasMore: false, cursor: null });
    expect((await api(t.baseUrl, 'PATCH', `/v1/categorization/groups/${g}`, { key: org.apiKey, body: { name: 'Cost center' } })).body).toMatchObject({ id: g, name: 'Cost center' });

    const red = await post(org.apiKey, `/v1/categorization/groups/${g}/tags`, { name: 'Marketing', color: '#ff0000' });
    expect(red.status).toBe(201);
    expect(red.body).toMatchObject({ id: expect.stringMatching(/^tag_/), groupId: g, name: 'Marketing', color: '#ff0000' });
    const sales = await tag(org, g, 'Sales');
    expect((await api(t.baseUrl, 'GET', `/v1/categorization/groups/${g}/tags`, { key: org.apiKey })).body.data.map((x: { name: string }) => x.name)).toEqual(['Sales', 'Marketing']);
    expect((await api(t.baseUrl, 'GET', `/v1/categorization/groups/${other}/tags`, { key: org.apiKey })).body.data).toEqual([]);
    expect((await api(t.baseUrl, 'PATCH', `/v1/categorization/tags/${sales}`, { key: org.apiKey, body: { name: 'Sales EU' } })).body).toMatchObject({ id: sales, name: 'Sales EU', color: null });
    expect((await api(t.baseUrl, 'DELETE', `/v1/categorization/tags/${sales}`, { key: org.apiKey })).body).toEqual({ id: sales, deleted: true });
    expectEnvelope(await api(t.baseUrl, 'PATCH', `/v1/categorization/tags/${sales}`, { key: org.apiKey, body: { name: 'x' } }), 404, 'RESOURCE_NOT_FOUND');

    expect((await api(t.baseUrl, 'DELETE', `/v1/categorization/groups/${g}`, { key: org.apiKey })).body).toEqual({ id: g, deleted: true });
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/categorization/groups/${g}/tags`, { key: org.apiKey }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'PATCH', `/v1/categorization/tags/${red.body.id}`, { key: org.apiKey, body: { name: 'x' } }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('refuses bad input, and another organization\'s groups are not visible', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'tags-bad' });
    const stranger = await bootstrap(t.baseUrl, { label: 'tags-stranger' });
    expectEnvelope(await post(org.apiKey, '/v1/categorization/groups', {}), 400, 'MISSING_FIELD');
    expectEnvelope(await post(org.apiKey, '/v1/categorization/groups', { name: '' }), 400, 'INVALID_REQUEST');
    const g = await group(org, 'Mine');
    expectEnvelope(await post(org.apiKey, `/v1/categorization/groups/${g}/tags`, { name: 'x', color: 'red' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await post(stranger.apiKey, `/v1/categorization/groups/${g}/tags`, { name: 'x' }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'PATCH', `/v1/categorization/groups/${g}`, { key: stranger.apiKey, body: { name: 'theirs' } }), 404, 'RESOURCE_NOT_FOUND');
    expect((await api(t.baseUrl, 'GET', '/v1/categorization/groups', { key: stranger.apiKey })).body.data).toEqual([]);
  });
});

describe('tags on objects', () => {
  it('tagging a document fires document.updated through the documents outbox; again is a no-op; untagging fires it too', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'tag-doc' });
    const doc = await receive(org, telecom, 'Mobile subscription', 40);
    const g = await group(org, 'Category');
    const telecomTag = await tag(org, g, 'Telecom');

    const first = await attach(org, doc, telecomTag);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ id: expect.stringMatching(/^tgd_/), objectId: doc, objectType: 'document', tagId: telecomTag, name: 'Telecom', groupId: g });
    expect((await attach(org, doc, telecomTag)).body.id).toBe(first.body.id);
    const listed = await api(t.baseUrl, 'GET', `/v1/categorization/objects/${doc}/tags`, { key: org.apiKey });
    expect(listed.body).toMatchObject({ data: [{ tagId: telecomTag, name: 'Telecom' }], hasMore: false });
    const added = await updatedEvents(org, doc, 1);
    expect(added).toHaveLength(1);
    expect(added[0]!.data.changes).toEqual({ tags: { added: [{ tagId: telecomTag, name: 'Telecom', groupId: g }] } });

    expect((await api(t.baseUrl, 'DELETE', `/v1/categorization/objects/${doc}/tags/${telecomTag}`, { key: org.apiKey })).body).toEqual({ objectId: doc, tagId: telecomTag, removed: true });
    expect((await api(t.baseUrl, 'GET', `/v1/categorization/objects/${doc}/tags`, { key: org.apiKey })).body.data).toEqual([]);
    const both = await updatedEvents(org, doc, 2);
    expect(both.map((e) => Object.keys(e.data.changes.tags)[0]).sort()).toEqual(['added', 'removed']);
    expectEnvelope(await api(t.baseUrl, 'DELETE', `/v1/categorization/objects/${doc}/tags/${telecomTag}`, { key: org.apiKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('tags companies and partners; refuses objects the caller does not see, unknown tags and types', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'tag-objects' });
    const stranger = await bootstrap(t.baseUrl, { label: 'tag-objects-stranger' });
    const g = await group(org, 'Segment');
    const key = await tag(org, g, 'Key account');
    expect((await attach(org, org.company.id, key, 'company')).body).toMatchObject({ objectType: 'company', objectId: org.company.id });
    const partner = await post(org.apiKey, '/v1/partners', { vatNumber: 'DE123456789', name: 'Lieferant GmbH', role: 'supplier' });
    expect(partner.status).toBe(201);
    expect((await attach(org, partner.body.id, key, 'partner')).body).toMatchObject({ objectType: 'partner', objectId: partner.body.id });

    const theirDoc = await receive(stranger, telecom, 'Roaming', 10);
    expectEnvelope(await attach(org, theirDoc, key), 404, 'DOCUMENT_NOT_FOUND');
    expectEnvelope(await attach(org, 'doc_01JD7Z3V9Q1M2N3P4R5S6T7V8W', key), 404, 'DOCUMENT_NOT_FOUND');
    expectEnvelope(await attach(org, stranger.company.id, key, 'company'), 404, 'COMPANY_NOT_FOUND');
    expectEnvelope(await attach(org, 'ptn_01JD7Z3V9Q1M2N3P4R5S6T7V8W', key, 'partner'), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await attach(org, org.company.id, 'tag_01JD7Z3V9Q1M2N3P4R5S6T7V8W', 'company'), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await attach(org, org.company.id, key, 'invoice'), 400, 'INVALID_ENUM');
    expectEnvelope(await post(org.apiKey, `/v1/categorization/objects/${org.company.id}/tags`, { objectType: 'company' }), 400, 'MISSING_FIELD');
    // Deleting the tag takes it off every object.
    await api(t.baseUrl, 'DELETE', `/v1/categorization/tags/${key}`, { key: org.apiKey });
    expect((await api(t.baseUrl, 'GET', `/v1/categorization/objects/${partner.body.id}/tags`, { key: org.apiKey })).body.data).toEqual([]);
  });
});

describe('tag suggestions', () => {
  it('with no tagging history: an empty list, not a guess', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'suggest-empty' });
    const g = await group(org, 'Category');
    await tag(org, g, 'Telecom');
    const doc = await receive(org, telecom, 'Mobile subscription', 40);
    const res = await suggest(org, doc);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expectEnvelope(await suggest(org, 'doc_01JD7Z3V9Q1M2N3P4R5S6T7V8W'), 404, 'DOCUMENT_NOT_FOUND');
  });

  it('learns from the organization\'s own history, incrementally, and ranks the right tag first', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'suggest-learn' });
    const category = await group(org, 'Category');
    const [telecomTag, officeTag] = [await tag(org, category, 'Telecom'), await tag(org, category, 'Office supplies')];
    const history: Array<[typeof telecom, string, number, string]> = [
      [telecom, 'Mobile subscription', 40, telecomTag], [telecom, 'Fibre internet', 45, telecomTag], [telecom, 'Mobile roaming', 12, telecomTag],
      [stationer, 'Printer paper A4', 60, officeTag], [stationer, 'Pens and folders', 25, officeTag], [stationer, 'Printer toner', 90, officeTag],
    ];
    for (const [from, line, price, tagId] of history) expect((await attach(org, await receive(org, from, line, price), tagId)).status).toBe(201);

    const phoneBill = await receive(org, telecom, 'Mobile subscription', 42);
    const forPhone = (await suggest(org, phoneBill)).body;
    expect(forPhone[0]).toMatchObject({ tagId: telecomTag, name: 'Telecom', groupId: category });
    expect(forPhone[0].confidence).toBeGreaterThan(0.5);
    for (const s of forPhone) expect(s.confidence).toBeLessThanOrEqual(forPhone[0].confidence);
    const paper = await receive(org, stationer, 'Printer paper A3', 55);
    expect((await suggest(org, paper)).body[0]).toMatchObject({ tagId: officeTag, name: 'Office supplies' });

    // A new tag in another group is suggested as soon as the history holds it (incremental learning).
    const projects = await group(org, 'Project');
    const apollo = await tag(org, projects, 'Apollo');
    expect((await suggest(org, paper)).body.map((s: { tagId: string }) => s.tagId)).not.toContain(apollo);
    expect((await attach(org, await receive(org, stationer, 'Printer paper A3 for Apollo', 58), apollo)).status).toBe(201);
    const now = (await suggest(org, paper)).body;
    expect(now.map((s: { tagId: string }) => s.tagId)).toEqual(expect.arrayContaining([officeTag, apollo]));
    expect(now.find((s: { tagId: string }) => s.tagId === apollo)).toMatchObject({ name: 'Apollo', groupId: projects });

    // Tags already on the object are not suggested again; an untagged history is forgotten.
    await attach(org, paper, officeTag);
    expect((await suggest(org, paper)).body.map((s: { tagId: string }) => s.tagId)).not.toContain(officeTag);
    await api(t.baseUrl, 'DELETE', `/v1/categorization/tags/${apollo}`, { key: org.apiKey });
    expect((await suggest(org, paper)).body.map((s: { tagId: string }) => s.tagId)).not.toContain(apollo);

    // The context adds what the caller knows of the object.
    const vague = await receive(org, telecom, 'Services', 30);
    const withContext = (await suggest(org, vague, { lines: [{ description: 'Mobile subscription' }] })).body;
    expect(withContext[0]).toMatchObject({ tagId: telecomTag });

    // Another organization learns nothing from this one's history.
    const stranger = await bootstrap(t.baseUrl, { label: 'suggest-stranger' });
    expect((await suggest(stranger, await receive(stranger, telecom, 'Mobile subscription', 40))).body).toEqual([]);
  });
});
