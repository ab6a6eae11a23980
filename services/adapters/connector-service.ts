/**
 * Turns a connector written against adapters/sdk into the `adapter.<id>` Moleculer service: the
 * broker's circuit breaker wraps its actions and readiness lists it. The host the connector sees
 * (directory, inbox, clock) is backed by the documents service.
 */
import type { Context, ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { systemClock } from '../shared/clock.ts';
import type { Connector, ConnectorHost } from '../../adapters/sdk/index.ts';
import { validateManifest } from '../../adapters/sdk/index.ts';
import { adapterContracts } from './adapters.contract.ts';
import { lookupParticipant, receiveInbound } from '../documents/documents.contract.ts';

function hostFor(ctx: Context, connector: Connector): ConnectorHost {
  const livemode = connector.manifest.mode === 'live';
  return {
    directory: { lookup: (participant) => call(ctx, lookupParticipant, { participant, livemode }) },
    inbox: { deliver: (doc) => call(ctx, receiveInbound, { ...doc, connectorId: connector.manifest.id }) },
    now: () => systemClock.now(),
  };
}

export function connectorService(connector: Connector): ServiceSchema {
  const problems = validateManifest(connector.manifest);
  if (problems.length) throw new Error(`connector ${connector.manifest.id}: ${problems.join('; ')}`);
  const c = adapterContracts(connector.manifest.id);
  return {
    name: `adapter.${connector.manifest.id}`,
    actions: {
      manifest: implement(c.manifest, async () => connector.manifest),
      check: implement(c.check, async (ctx) => connector.check(ctx.params, hostFor(ctx, connector))),
      send: implement(c.send, async (ctx) => connector.send(ctx.params, hostFor(ctx, connector))),
      status: implement(c.status, async (ctx) => connector.status(ctx.params.messageId, hostFor(ctx, connector))),
      receive: implement(c.receive, async (ctx) => connector.receive(ctx.params, hostFor(ctx, connector))),
    },
  };
}
