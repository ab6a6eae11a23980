/**
 * categorization: tag groups and tags, tags on documents, companies and partners, and tag
 * suggestions. The objects belong to other services: a tagging checks the caller sees the object
 * through its service's action, keeps its features (the history the model learns from), and a
 * document's tagging fires document.updated through the documents service's outbox.
 *
 * The suggestion model (one per organization and mode) lives in memory and is kept in step with
 * the taggings table incrementally: each query reads only the taggings added since the last one;
 * when the count says some were removed elsewhere (another replica, a deleted tag), it is rebuilt.
 */
import type { Context, ServiceSchema } from 'moleculer';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf, type Principal } from '../shared/auth.ts';
import { DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { get as getDocument, jsonRepresentation, recordDocumentUpdate } from '../documents/documents.contract.ts';
import { getPartner } from '../partners/partners.contract.ts';
import { getCompany } from '../tenancy/tenancy.contract.ts';
import { TagGroup, Tag, Tagging, type TaggableType } from './tag.entity.ts';
import { contextFeatures, documentFeatures, partyFeatures } from './features.ts';
import { TagSuggestionModel } from './suggestion-model.ts';
import * as contract from './categorization.contract.ts';

const scopeOf = (auth: Principal) => ({ organizationId: auth.organizationId, livemode: auth.livemode });

/** The most recent taggings a model learns from (bounds its memory and rebuild time). */
const MAX_HISTORY = 50_000;
/** Organizations whose model a process keeps (least recently used dropped first). */
const MAX_MODELS = 200;

const groupView = (g: TagGroup): contract.GroupView => ({ id: g.id, name: g.name, createdAt: g.createdAt.toISOString(), updatedAt: g.updatedAt.toISOString() });
const tagView = (t: Tag): contract.TagView => ({ id: t.id, groupId: t.groupId, name: t.name, color: t.color ?? null, createdAt: t.createdAt.toISOString(), updatedAt: t.updatedAt.toISOString() });
const taggingView = (x: Tagging, tag: Tag): contract.TaggingView => ({ id: x.id, objectId: x.objectId, objectType: x.objectType, tagId: tag.id, name: tag.name, groupId: tag.groupId, createdAt: x.createdAt.toISOString() });

async function findGroup(ctx: Context, groupId: string): Promise<TagGroup> {
  const group = await emOf(ctx).findOne(TagGroup, { id: groupId, ...scopeOf(principalOf(ctx)) });
  if (!group) throw new DomainError('RESOURCE_NOT_FOUND', `Tag group '${groupId}' was not found`);
  return group;
}

async function findTag(ctx: Context, tagId: string): Promise<Tag> {
  const tag = await emOf(ctx).findOne(Tag, { id: tagId, ...scopeOf(principalOf(ctx)) });
  if (!tag) throw new DomainError('RESOURCE_NOT_FOUND', `Tag '${tagId}' was not found`, { details: [{ field: 'tagId', rule: 'exists', message: 'not a tag of this organization' }] });
  return tag;
}

/** The object's features, read through its own service (which also answers 404 when the caller does not see it). */
async function featuresOf(ctx: Context, objectType: TaggableType, objectId: string): Promise<string[]> {
  switch (objectType) {
    case 'document': {
      const doc = await call(ctx, getDocument, { id: objectId });
      const body = doc.format === 'raw' ? null : await call(ctx, jsonRepresentation, { id: objectId }).then((b) => b as Record<string, unknown>, () => null);
      return documentFeatures(doc, body && !Buffer.isBuffer(body) && typeof body === 'object' ? body : null);
    }
    case 'partner': {
      const partner = await call(ctx, getPartner, { id: objectId });
      return partyFeatures('partner', partner);
    }
    case 'company': {
      const company = await call(ctx, getCompany, { id: objectId });
      return partyFeatures('company', company);
    }
  }
}

/** A model and how far it has read the taggings: up to `lastId`, `rows` of them, past the `skipped` oldest. */
interface CachedModel { model: TagSuggestionModel; lastId: string; rows: number; skipped: number }

type CatThis = { models: Map<string, CachedModel> };

/** The organization's model, brought up to date with the taggings table (incrementally when it can). */
async function modelFor(this: CatThis, em: EntityManager, auth: Principal): Promise<TagSuggestionModel> {
  const key = `${auth.organizationId}:${auth.livemode}`;
  const count = await em.count(Tagging, scopeOf(auth));
  let cached = this.models.get(key);
  if (cached) {
    this.models.delete(key);
    this.models.set(key, cached); // most recently used last
    const added = await em.find(Tagging, { ...scopeOf(auth), id: { $gt: cached.lastId } }, { orderBy: { id: 'asc' }, limit: MAX_HISTORY });
    for (const row of added) cached.model.add(row.objectId, row.features, row.tagId);
    cached.rows += added.length;
    if (added.length) cached.lastId = added.at(-1)!.id;
    // In step when nothing was removed; past a fifth over its bound a rebuild drops the oldest.
    if (count === cached.skipped + cached.rows && cached.rows <= MAX_HISTORY * 1.2) return cached.model;
  }
  // First use, or taggings were removed (or inserted out of order) elsewhere: learn the history again.
  const rows = (await em.find(Tagging, scopeOf(auth), { orderBy: { id: 'desc' }, limit: MAX_HISTORY })).reverse();
  const model = new TagSuggestionModel();
  for (const row of rows) model.add(row.objectId, row.features, row.tagId);
  cached = { model, lastId: rows.at(-1)?.id ?? '', rows: rows.length, skipped: Math.max(0, count - rows.length) };
  this.models.delete(key);
  this.models.set(key, cached);
  if (this.models.size > MAX_MODELS) this.models.delete(this.models.keys().next().value!);
  return model;
}

function forgetInModel(this: CatThis, auth: Principal, tagging: Tagging): void {
  const cached = this.models.get(`${auth.organizationId}:${auth.livemode}`);
  if (!cached) return;
  cached.model.remove(tagging.objectId, tagging.tagId);
  cached.rows -= 1;
}

const CategorizationService: ServiceSchema = {
  name: 'categorization',
  mixins: [OrmMixin],

  created() {
    (this as unknown as CatThis).models = new Map();
  },

  actions: {
    // The organization's model notices the fewer taggings and learns again on its next suggestion.
    resetSandbox: implement(contract.resetSandbox, async (ctx) => ({ taggings: await emOf(ctx).nativeDelete(Tagging, { organizationId: ctx.params.organizationId, livemode: false }) })),
    createGroup: implement(contract.createGroup, async (ctx) => {
      const em = emOf(ctx);
      const group = em.create(TagGroup, { id: newId('tagGroup'), ...scopeOf(principalOf(ctx)), name: ctx.params.name });
      await em.flush();
      return groupView(group);
    }),

    listGroups: implement(contract.listGroups, async (ctx) => {
      const page = readPageRequest(ctx.params);
      const rows = await emOf(ctx).find(TagGroup, { ...scopeOf(principalOf(ctx)), ...(page.after ? { id: { $lt: page.after } } : {}) }, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      return toPage(rows, page, (r) => r.id, groupView);
    }),

    renameGroup: implement(contract.renameGroup, async (ctx) => {
      const group = await findGroup(ctx, ctx.params.groupId);
      group.name = ctx.params.name;
      await emOf(ctx).flush();
      return groupView(group);
    }),

    deleteGroup: implement(contract.deleteGroup, async function (this: CatThis, ctx) {
      const group = await findGroup(ctx, ctx.params.groupId);
      // Tags and their taggings go with it (foreign keys cascade); the model relearns on its next use.
      await emOf(ctx).nativeDelete(TagGroup, { id: group.id });
      return { id: group.id, deleted: true as const };
    }),

    createTag: implement(contract.createTag, async (ctx) => {
      const group = await findGroup(ctx, ctx.params.groupId);
      const em = emOf(ctx);
      const tag = em.create(Tag, { id: newId('tag'), ...scopeOf(principalOf(ctx)), groupId: group.id, name: ctx.params.name, color: ctx.params.color ?? null });
      await em.flush();
      return tagView(tag);
    }),

    listTags: implement(contract.listTags, async (ctx) => {
      const group = await findGroup(ctx, ctx.params.groupId);
      const page = readPageRequest(ctx.params);
      const rows = await emOf(ctx).find(Tag, { ...scopeOf(principalOf(ctx)), groupId: group.id, ...(page.after ? { id: { $lt: page.after } } : {}) }, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      return toPage(rows, page, (r) => r.id, tagView);
    }),

    updateTag: implement(contract.updateTag, async (ctx) => {
      const tag = await findTag(ctx, ctx.params.tagId);
      if (ctx.params.name !== undefined) tag.name = ctx.params.name;
      if (ctx.params.color !== undefined) tag.color = ctx.params.color;
      await emOf(ctx).flush();
      return tagView(tag);
    }),

    deleteTag: implement(contract.deleteTag, async (ctx) => {
      const tag = await findTag(ctx, ctx.params.tagId);
      await emOf(ctx).nativeDelete(Tag, { id: tag.id });
      return { id: tag.id, deleted: true as const };
    }),

    objectTags: implement(contract.objectTags, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      const em = emOf(ctx);
      const rows = await em.find(Tagging, { ...scopeOf(auth), objectId: ctx.params.objectId, ...(page.after ? { id: { $lt: page.after } } : {}) }, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      const tags = new Map((await em.find(Tag, { id: { $in: rows.map((r) => r.tagId) } })).map((t) => [t.id, t]));
      return toPage(rows, page, (r) => r.id, (r) => taggingView(r, tags.get(r.tagId)!));
    }),

    attachTag: implement(contract.attachTag, async (ctx) => {
      const auth = principalOf(ctx);
      const p = ctx.params;
      const tag = await findTag(ctx, p.tagId);
      const features = await featuresOf(ctx, p.objectType, p.objectId);
      const em = emOf(ctx);
      const existing = await em.findOne(Tagging, { ...scopeOf(auth), tagId: tag.id, objectId: p.objectId });
      if (existing) return taggingView(existing, tag);
      const tagging = em.create(Tagging, { id: newId('tagging'), ...scopeOf(auth), tagId: tag.id, objectId: p.objectId, objectType: p.objectType, features });
      try {
        await em.flush();
      } catch (err) {
        if ((err as { name?: string }).name !== 'UniqueConstraintViolationException') throw err;
        // Tagged concurrently by another call: that one fired the event.
        return taggingView((await em.fork().findOne(Tagging, { tagId: tag.id, objectId: p.objectId }))!, tag);
      }
      if (p.objectType === 'document') {
        try {
          await call(ctx, recordDocumentUpdate, { id: p.objectId, changes: { tags: { added: [{ tagId: tag.id, name: tag.name, groupId: tag.groupId }] } } });
        } catch (err) {
          // No event, no tagging: the two stay in step.
          await em.nativeDelete(Tagging, { id: tagging.id });
          throw err;
        }
      }
      return taggingView(tagging, tag);
    }),

    detachTag: implement(contract.detachTag, async function (this: CatThis, ctx) {
      const auth = principalOf(ctx);
      const em = emOf(ctx);
      const tagging = await em.findOne(Tagging, { ...scopeOf(auth), tagId: ctx.params.tagId, objectId: ctx.params.objectId });
      if (!tagging) throw new DomainError('RESOURCE_NOT_FOUND', `Object '${ctx.params.objectId}' does not carry tag '${ctx.params.tagId}'`);
      const tag = await em.findOne(Tag, { id: tagging.tagId });
      if (tagging.objectType === 'document') {
        await call(ctx, recordDocumentUpdate, { id: tagging.objectId, changes: { tags: { removed: [{ tagId: tagging.tagId, name: tag?.name ?? null, groupId: tag?.groupId ?? null }] } } });
      }
      await em.nativeDelete(Tagging, { id: tagging.id });
      forgetInModel.call(this, auth, tagging);
      return { objectId: tagging.objectId, tagId: tagging.tagId, removed: true as const };
    }),

    suggestTags: implement(contract.suggestTags, async function (this: CatThis, ctx) {
      const auth = principalOf(ctx);
      const p = ctx.params;
      const em = emOf(ctx);
      const features = [...await featuresOf(ctx, p.objectType, p.objectId), ...contextFeatures(p.context)];
      const model = await modelFor.call(this, em, auth);
      const carried = new Set((await em.find(Tagging, { ...scopeOf(auth), objectId: p.objectId })).map((t) => t.tagId));
      const ranked = model.suggest(features, { exclude: carried });
      if (!ranked.length) return [];
      const tags = new Map((await em.find(Tag, { ...scopeOf(auth), id: { $in: ranked.map((r) => r.tagId) } })).map((t) => [t.id, t]));
      return ranked.flatMap((r) => {
        const tag = tags.get(r.tagId);
        return tag ? [{ tagId: tag.id, name: tag.name, groupId: tag.groupId, confidence: r.confidence }] : [];
      });
    }),
  },
};

export default CategorizationService;
