/**
 * Contracts of the `adapter.<id>` services: every connector exposes the same four verbs of the
 * connector SDK (plus its manifest), so callers reach any adapter through one typed shape.
 */
import { defineAction, type ActionContract } from '../shared/contract.ts';
import type { CheckRequest, CheckResult, ConnectorManifest, OutboundMessage, SendResult, StatusResult } from '../../adapters/sdk/index.ts';

export interface AdapterContracts {
  manifest: ActionContract<Record<string, never>, ConnectorManifest>;
  check: ActionContract<CheckRequest, CheckResult>;
  send: ActionContract<OutboundMessage, SendResult>;
  status: ActionContract<{ messageId: string }, StatusResult>;
  receive: ActionContract<OutboundMessage, { documentId: string }>;
}

const message = {
  documentId: 'string',
  type: 'string',
  sender: 'object',
  recipient: 'object',
  payload: 'object',
  attempt: { type: 'number', integer: true, min: 1 },
} as const;

const cache = new Map<string, AdapterContracts>();

export function adapterContracts(connectorId: string): AdapterContracts {
  let c = cache.get(connectorId);
  if (!c) {
    const service = `adapter.${connectorId}`;
    c = {
      manifest: defineAction(service, 'manifest', { params: {} }),
      check: defineAction(service, 'check', { params: { recipient: 'object', documentType: 'string' } }),
      send: defineAction(service, 'send', { params: { ...message } }),
      status: defineAction(service, 'status', { params: { messageId: 'string' } }),
      receive: defineAction(service, 'receive', { params: { ...message } }),
    };
    cache.set(connectorId, c);
  }
  return c;
}
