/**
 * categorization: tag groups and tags of an organization, tags on its documents, companies and
 * partners, and tag suggestions learned from its own tagging history.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import { TAGGABLE_TYPES, type TaggableType } from './tag.entity.ts';

const SERVICE = 'categorization';

export interface GroupView { id: string; name: string; createdAt: string; updatedAt: string }
export interface TagView { id: string; groupId: string; name: string; color: string | null; createdAt: string; updatedAt: string }
export interface TaggingView { id: string; objectId: string; objectType: TaggableType; tagId: string; name: string; groupId: string; createdAt: string }
export interface TagSuggestion { tagId: string; name: string; groupId: string; confidence: number }

const groupSchema = {
  type: 'object', required: ['id', 'name', 'createdAt', 'updatedAt'],
  properties: { id: { type: 'string', examples: ['tgrp_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] }, name: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' } },
};
const tagSchema = {
  type: 'object', required: ['id', 'groupId', 'name', 'color', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', examples: ['tag_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] }, groupId: { type: 'string' }, name: { type: 'string' }, color: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' },
  },
};
const taggingSchema = {
  type: 'object', required: ['id', 'objectId', 'objectType', 'tagId', 'name', 'groupId', 'createdAt'],
  properties: {
    id: { type: 'string' }, objectId: { type: 'string' }, objectType: { type: 'string', enum: [...TAGGABLE_TYPES] }, tagId: { type: 'string' },
    name: { type: 'string', description: 'The tag\'s name' }, groupId: { type: 'string' }, createdAt: { type: 'string', format: 'date-time', description: 'When the object was tagged' },
  },
};
const deletedSchema = { type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { const: true } } };

const id = { type: 'string', min: 1, max: 64 } as const;
const name = { type: 'string', min: 1, max: 100, trim: true } as const;
const color = { type: 'string', optional: true, pattern: /^#[0-9a-fA-F]{6}$/, messages: { stringPattern: "The 'color' field must be a hex colour like #1f77b4." } } as const;

export const createGroup = defineAction<{ name: string }, GroupView>(SERVICE, 'createGroup', {
  params: { ...STRICT_REMOVE, name },
  http: { method: 'POST', path: '/v1/categorization/groups', access: 'documents.write', tag: 'Categorization', status: 201, location: (g: GroupView) => `/v1/categorization/groups/${g.id}/tags`, summary: 'Create a tag group', response: groupSchema },
});

export const listGroups = defineAction<{ limit?: number; cursor?: string }, Page<GroupView>>(SERVICE, 'listGroups', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS },
  http: { method: 'GET', path: '/v1/categorization/groups', access: 'documents.read', tag: 'Categorization', summary: 'The organization\'s tag groups, newest first', response: pageSchema(groupSchema) },
});

export const renameGroup = defineAction<{ groupId: string; name: string }, GroupView>(SERVICE, 'renameGroup', {
  params: { ...STRICT_REMOVE, groupId: id, name },
  http: { method: 'PATCH', path: '/v1/categorization/groups/:groupId', access: 'documents.write', tag: 'Categorization', summary: 'Rename a tag group', response: groupSchema },
});

export const deleteGroup = defineAction<{ groupId: string }, { id: string; deleted: true }>(SERVICE, 'deleteGroup', {
  params: { ...STRICT_REMOVE, groupId: id },
  http: { method: 'DELETE', path: '/v1/categorization/groups/:groupId', access: 'documents.write', tag: 'Categorization', summary: 'Delete a tag group with its tags (taken off every object)', response: deletedSchema },
});

export const createTag = defineAction<{ groupId: string; name: string; color?: string }, TagView>(SERVICE, 'createTag', {
  params: { ...STRICT_REMOVE, groupId: id, name, color },
  http: { method: 'POST', path: '/v1/categorization/groups/:groupId/tags', access: 'documents.write', tag: 'Categorization', status: 201, location: (t: TagView) => `/v1/categorization/groups/${t.groupId}/tags`, summary: 'Create a tag in a group', response: tagSchema },
});

export const listTags = defineAction<{ groupId: string; limit?: number; cursor?: string }, Page<TagView>>(SERVICE, 'listTags', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS, groupId: id },
  http: { method: 'GET', path: '/v1/categorization/groups/:groupId/tags', access: 'documents.read', tag: 'Categorization', summary: 'Tags in a group, newest first', response: pageSchema(tagSchema) },
});

export const updateTag = defineAction<{ tagId: string; name?: string; color?: string }, TagView>(SERVICE, 'updateTag', {
  params: { ...STRICT_REMOVE, tagId: id, name: { ...name, optional: true }, color },
  http: { method: 'PATCH', path: '/v1/categorization/tags/:tagId', access: 'documents.write', tag: 'Categorization', summary: 'Rename a tag (or change its colour)', response: tagSchema },
});

export const deleteTag = defineAction<{ tagId: string }, { id: string; deleted: true }>(SERVICE, 'deleteTag', {
  params: { ...STRICT_REMOVE, tagId: id },
  http: { method: 'DELETE', path: '/v1/categorization/tags/:tagId', access: 'documents.write', tag: 'Categorization', summary: 'Delete a tag (taken off every object)', response: deletedSchema },
});

export const objectTags = defineAction<{ objectId: string; limit?: number; cursor?: string }, Page<TaggingView>>(SERVICE, 'objectTags', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS, objectId: id },
  http: { method: 'GET', path: '/v1/categorization/objects/:objectId/tags', access: 'documents.read', tag: 'Categorization', summary: 'Tags on an object (document, company or partner), most recently tagged first', response: pageSchema(taggingSchema) },
});

export const attachTag = defineAction<{ objectId: string; tagId: string; objectType: TaggableType }, TaggingView>(SERVICE, 'attachTag', {
  params: { ...STRICT_REMOVE, objectId: id, tagId: id, objectType: { type: 'enum', values: [...TAGGABLE_TYPES] } },
  http: {
    method: 'POST', path: '/v1/categorization/objects/:objectId/tags', access: 'documents.write', tag: 'Categorization', status: 201, location: (x: TaggingView) => `/v1/categorization/objects/${x.objectId}/tags`,
    summary: 'Tag an object (`objectType` document, company or partner; it must be one the caller sees). Tagging a document fires document.updated (`changes.tags`). Tagging it again with the same tag changes nothing and answers the existing tagging',
    response: taggingSchema,
  },
});

export const detachTag = defineAction<{ objectId: string; tagId: string }, { objectId: string; tagId: string; removed: true }>(SERVICE, 'detachTag', {
  params: { ...STRICT_REMOVE, objectId: id, tagId: id },
  http: {
    method: 'DELETE', path: '/v1/categorization/objects/:objectId/tags/:tagId', access: 'documents.write', tag: 'Categorization',
    summary: 'Take a tag off an object (document.updated for a document); 404 when the object does not carry it',
    response: { type: 'object', required: ['objectId', 'tagId', 'removed'], properties: { objectId: { type: 'string' }, tagId: { type: 'string' }, removed: { const: true } } },
  },
});

export const suggestTags = defineAction<{ objectId: string; objectType: TaggableType; context?: Record<string, unknown> }, TagSuggestion[]>(SERVICE, 'suggestTags', {
  params: {
    ...STRICT_REMOVE, objectId: id, objectType: { type: 'enum', values: [...TAGGABLE_TYPES] },
    context: { type: 'object', optional: true, openapi: { type: 'object', additionalProperties: true, description: 'More of what the object is about: `seller`, `buyer`, `lines` ([{description}]), `note`, `amount`, `currency`, or any text' } },
  },
  http: {
    method: 'POST', path: '/v1/categorization/objects/tags/auto', access: 'documents.read', tag: 'Categorization',
    errors: { 404: 'DOCUMENT_NOT_FOUND, COMPANY_NOT_FOUND, RESOURCE_NOT_FOUND: the object is not one the caller sees' },
    summary: 'Tag suggestions for an object, ranked by confidence, learned from the organization\'s own tagging history (TF-IDF features of seller, lines, amount and notes; nearest neighbours among the objects it tagged). Runs locally. With no history, or nothing like the object in it, the list is empty; tags already on the object are not suggested',
    response: {
      type: 'array',
      items: { type: 'object', required: ['tagId', 'name', 'groupId', 'confidence'], properties: { tagId: { type: 'string' }, name: { type: 'string' }, groupId: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 } } },
    },
  },
});

/** Internal (sandbox reset and expiry): removes an organization's sandbox taggings (what the suggestions learn from); its tag groups and tags stay (configuration). */
export const resetSandbox = defineAction<{ organizationId: string }, { taggings: number }>(SERVICE, 'resetSandbox', {
  params: { organizationId: { type: 'string', min: 1, max: 255 } },
});
