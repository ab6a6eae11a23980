/**
 * directory: participant lookup by action. The connectors' hosts ask it (`host.directory.lookup`)
 * and it asks tenancy for the company a participant names; it keeps no table of its own yet (the
 * SMP/SML discovery cache will be its first).
 */
import type { ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { findParticipant } from '../tenancy/tenancy.contract.ts';
import { lookupParticipant, PLATFORM_DOCUMENT_TYPES } from './directory.contract.ts';

const DirectoryService: ServiceSchema = {
  name: 'directory',
  actions: {
    lookupParticipant: implement(lookupParticipant, async (ctx) => {
      const company = await call(ctx, findParticipant, ctx.params);
      if (!company) return null;
      return {
        organizationId: company.organizationId, companyId: company.id, peppolId: company.peppolId, name: company.name, country: company.country,
        documentTypes: [...PLATFORM_DOCUMENT_TYPES],
      };
    }),
  },
};

export default DirectoryService;
