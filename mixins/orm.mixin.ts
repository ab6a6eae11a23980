import type { Context, ServiceSchema } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { databaseOf } from '../services/shared/persistence/database.ts';

/**
 * Gives every action its own EntityManager fork (`emOf(ctx)`): identity maps never leak between
 * concurrent requests, and a failed unit of work cannot poison the next one.
 */
export const OrmMixin: Partial<ServiceSchema> = {
  hooks: {
    before: {
      '*'(this: { broker: Context['broker'] }, ctx: Context) {
        (ctx.locals as { em?: EntityManager }).em = databaseOf(this.broker).em.fork() as EntityManager;
      },
    },
  },
};

export function emOf(ctx: Context): EntityManager {
  const em = (ctx.locals as { em?: EntityManager }).em;
  if (!em) throw new Error('emOf() called outside an action of a service using OrmMixin');
  return em;
}
