import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const TAGGABLE_TYPES = ['document', 'company', 'partner'] as const;
export type TaggableType = (typeof TAGGABLE_TYPES)[number];

/** A named set of tags of an organization (e.g. "Cost centre", "Project"). */
export const TagGroup = defineEntity({
  name: 'TagGroup',
  tableName: 'tag_groups',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    livemode: p.boolean(),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ name: 'tag_groups_list_index', properties: ['organizationId', 'livemode', 'id'] }],
});
export type TagGroup = InferEntity<typeof TagGroup>;

/** One tag of a group. */
export const Tag = defineEntity({
  name: 'Tag',
  tableName: 'tags',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    livemode: p.boolean(),
    groupId: p.string(),
    name: p.string(),
    color: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ name: 'tags_group_index', properties: ['organizationId', 'livemode', 'groupId', 'id'] }],
});
export type Tag = InferEntity<typeof Tag>;

/**
 * A tag on an object (a document, company or partner of another service, named by id). It keeps
 * the features the object had when it was tagged (tokens of its seller, lines, amount, notes): the
 * organization's tagging history the suggestion model learns from, without reading other services'
 * tables again.
 */
export const Tagging = defineEntity({
  name: 'Tagging',
  tableName: 'taggings',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    livemode: p.boolean(),
    tagId: p.string(),
    objectId: p.string(),
    objectType: p.enum(TAGGABLE_TYPES),
    features: p.json<string[]>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ name: 'taggings_object_index', properties: ['organizationId', 'livemode', 'objectId'] }, { name: 'taggings_history_index', properties: ['organizationId', 'livemode', 'id'] }],
});
export type Tagging = InferEntity<typeof Tagging>;
