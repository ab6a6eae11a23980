/**
 * Turns a connector written against adapters/sdk into its `adapter.<id>` Moleculer service: the
 * manifest goes into the service metadata (the router reads it from the registry), the broker's
 * circuit breaker wraps the verbs and readiness lists it. A connector's typed errors cross the
 * broker as data: a permanent one is a `rejected` outcome with the network's code, a transient one
 * is thrown (it counts against the breaker; delivery re-sends it).
 */
import type { ServiceSchema } from 'moleculer';
import { Errors } from 'moleculer';
import { implement } from '../shared/contract.ts';
import type { ConnectorSettings } from '../shared/connector-settings.ts';
import { isPermanent, validateManifest, type Connector, type ConnectorRoute, type InboundRequest } from '../../adapters/sdk/index.ts';
import { adapterContracts, MANIFEST_METADATA_KEY, type RouteResponse } from './adapters.contract.ts';
import { createConnectorHost, type RunningHost } from './host.ts';

/** What a connector throws that is not permanent: a server-side, retryable failure of this adapter. */
function transientError(connectorId: string, err: unknown): Error {
  const e = err as { message?: string; code?: unknown };
  const networkCode = typeof e.code === 'string' ? e.code : undefined;
  return new Errors.MoleculerError(`adapter.${connectorId}: ${e.message ?? String(err)}`, 502, 'CONNECTOR_TRANSIENT', networkCode ? { networkCode } : undefined);
}

/**
 * Runs a verb whose answer can say `rejected`: a permanent ConnectorError becomes that answer, with
 * the network's code and message; anything else thrown is a transient failure of the adapter.
 */
async function rejectedWhenPermanent<R>(connectorId: string, verb: () => Promise<R>): Promise<R | { outcome: 'rejected'; errorCode: string; errorMessage: string }> {
  try {
    return await verb();
  } catch (err) {
    if (isPermanent(err)) return { outcome: 'rejected', errorCode: err.code, errorMessage: err.message };
    throw transientError(connectorId, err);
  }
}

function missingVerb(connectorId: string, verb: string): Error {
  return new Errors.MoleculerError(`adapter.${connectorId} has no ${verb} capability`, 501, 'CONNECTOR_CAPABILITY_MISSING');
}

function matchRoute(routes: readonly ConnectorRoute[], method: string, route: string): ConnectorRoute | undefined {
  return routes.find((r) => r.method === method && r.path === `/${route}`);
}

export function connectorService(connector: Connector, settings: ConnectorSettings): ServiceSchema {
  const { manifest } = connector;
  const problems = validateManifest(manifest, connector);
  if (problems.length) throw new Error(`connector ${manifest.id}: ${problems.join('; ')}`);
  const c = adapterContracts(manifest.id);
  // The optional verbs, bound once: a connector may be a class instance whose verbs use `this`.
  const send = connector.send?.bind(connector);
  const status = connector.status?.bind(connector);
  const report = connector.report?.bind(connector);
  const health = connector.health?.bind(connector);
  const probe = connector.probe?.bind(connector);
  const respond = connector.respond?.bind(connector);
  let running: RunningHost | undefined;
  const host = () => {
    if (!running) throw new Errors.MoleculerRetryableError(`adapter.${manifest.id} is not started`, 503, 'CONNECTOR_NOT_STARTED');
    return running.host;
  };

  return {
    name: `adapter.${manifest.id}`,
    metadata: { [MANIFEST_METADATA_KEY]: manifest },
    actions: {
      manifest: implement(c.manifest, async () => manifest),
      // Declared only for connectors that tell their health: the health service looks for it by name.
      ...(health ? { health: implement(c.health, async () => health(host())) } : {}),
      // Declared only for connectors that run the reachability self-test; a broken hop is an answer, a throw is the adapter failing.
      ...(probe ? { probe: implement(c.probe, async (ctx) => { try { return await probe(ctx.params, host()); } catch (err) { throw transientError(manifest.id, err); } }) } : {}),
      // Declared only for connectors that pass lifecycle answers back (a Peppol Invoice Response).
      ...(respond ? { respond: implement(c.respond, async (ctx) => rejectedWhenPermanent(manifest.id, () => respond(ctx.params, host()))) } : {}),
      check: implement(c.check, async (ctx) => {
        if (!connector.check) throw missingVerb(manifest.id, 'discover');
        try { return await connector.check(ctx.params, host()); } catch (err) { throw transientError(manifest.id, err); }
      }),
      send: implement(c.send, async (ctx) => {
        if (!send) throw missingVerb(manifest.id, 'send');
        return rejectedWhenPermanent(manifest.id, () => send(ctx.params, host()));
      }),
      status: implement(c.status, async (ctx) => {
        if (!status) throw missingVerb(manifest.id, 'status');
        return rejectedWhenPermanent(manifest.id, () => status(ctx.params, host()));
      }),
      lookupCompany: implement(c.lookupCompany, async (ctx) => {
        if (!connector.lookupCompany) throw missingVerb(manifest.id, 'registry');
        // Every failure is transient here: the caller keeps the company pending and asks again later.
        try { return await connector.lookupCompany(ctx.params, host()); } catch (err) { throw transientError(manifest.id, err); }
      }),
      report: implement(c.report, async (ctx) => {
        if (!report) throw missingVerb(manifest.id, 'report');
        return rejectedWhenPermanent(manifest.id, () => report(ctx.params, host()));
      }),
      route: implement(c.route, async (ctx): Promise<RouteResponse> => {
        const p = ctx.params;
        const route = matchRoute(connector.routes ?? [], p.method, p.route);
        if (!route) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no such connector route' };
        const req: InboundRequest = {
          method: p.method, path: route.path, headers: p.headers, query: p.query, body: Buffer.from(p.body, 'base64'),
          ...(p.clientCertificate ? { clientCertificate: p.clientCertificate } : {}),
        };
        const h = host();
        // Outside the API's key auth: each route proves its caller (client certificate or signature);
        // a `message` route verifies the message's own signature in its handler.
        if (route.auth === 'mtls' && !req.clientCertificate) return { status: 401, headers: { 'content-type': 'text/plain' }, body: 'a client certificate is required' };
        if ((route.auth === 'signature' || route.verify) && !(route.verify && await route.verify(req, h))) return { status: 401, headers: { 'content-type': 'text/plain' }, body: 'the request is not authentic' };
        const res = await route.handle(req, h);
        const body = res.body === undefined ? undefined : Buffer.isBuffer(res.body) ? res.body.toString('base64') : Buffer.from(res.body).toString('base64');
        return { status: res.status, ...(res.headers ? { headers: res.headers } : {}), ...(body !== undefined ? { body, bodyEncoding: 'base64' as const } : {}) };
      }),
    },
    async started() {
      running = createConnectorHost(this.broker, manifest, settings);
      await connector.start?.(running.host);
    },
    async stopped() {
      if (!running) return;
      const r = running;
      running = undefined;
      await connector.stop?.(r.host).catch((err: unknown) => this.logger.error(`connector ${manifest.id} failed to stop cleanly`, err));
      await r.close();
    },
  };
}
