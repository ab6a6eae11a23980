/**
 * Import boundaries (`npm run lint:imports`, run by .ci/run). Each table belongs to one service, so
 * one service reaches another only through its contract (`services/<name>/<name>.contract.ts`,
 * actions and event payloads) or the shared kernel (`services/shared`). Mixins are the sanctioned
 * write paths every service shares (the outbox row, the job queue); connectors see only the SDK and
 * the pure mappings. `services/index.ts` and `services/app.ts` compose the services and
 * `services/shared/persistence/entities.ts` is MikroORM's entity list: they may import anything.
 */
const CONTRACT = '^services/[^/]+/[^/]+[.]contract[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'service-boundary',
      comment: 'A service imports another service only through its *.contract.ts (or services/shared).',
      severity: 'error',
      from: { path: '^services/([^/]+)/', pathNot: '^services/shared/' },
      to: { path: '^services/', pathNot: ['^services/$1/', '^services/shared/', CONTRACT] },
    },
    {
      name: 'shared-is-the-bottom',
      comment: 'services/shared is the kernel every service builds on: it imports no service (entities.ts, the ORM entity list, excepted).',
      severity: 'error',
      from: { path: '^services/shared/', pathNot: '^services/shared/persistence/entities[.]ts$' },
      to: { path: '^services/', pathNot: ['^services/shared/'] },
    },
    {
      name: 'mixins-use-contracts',
      comment: 'Mixins reach services through contracts; the outbox mixin alone writes the event row.',
      severity: 'error',
      from: { path: '^mixins/' },
      to: { path: '^services/', pathNot: ['^services/shared/', CONTRACT, '^services/events/event[.]entity[.]ts$'] },
    },
    {
      name: 'mappings-are-pure',
      comment: 'mappings/ are pure translations: no service, connector or broker code.',
      severity: 'error',
      from: { path: '^mappings/' },
      to: { path: ['^services/', '^mixins/', '^adapters/', 'node_modules/moleculer/'] },
    },
    {
      name: 'sdk-has-no-moleculer',
      comment: 'The connector SDK is what partners build on: no Moleculer, no product internals.',
      severity: 'error',
      from: { path: '^adapters/sdk/' },
      to: { path: ['^services/', '^mixins/', 'node_modules/moleculer/', '^adapters/(?!sdk/)'] },
    },
    {
      name: 'connector-is-one-folder',
      comment: 'A connector imports only the SDK, the mappings, its own folder and the kits (the Peppol connectors share discovery, PKI and AS4; the clearance connectors share XAdES signing).',
      severity: 'error',
      from: { path: '^adapters/([^/]+)/', pathNot: '^adapters/sdk/' },
      to: { path: ['^services/', '^mixins/', 'node_modules/moleculer/', '^adapters/'], pathNot: ['^adapters/$1/', '^adapters/sdk/', '^adapters/peppol-kit/', '^adapters/clearance-kit/'] },
    },
    {
      name: 'peppol-kit-is-a-library',
      comment: 'The Peppol kit is shared by connectors: it builds on the SDK and needs nothing of theirs.',
      severity: 'error',
      from: { path: '^adapters/peppol-kit/' },
      to: { path: ['^services/', '^mixins/', 'node_modules/moleculer/', '^adapters/(?!peppol-kit/|sdk/)'] },
    },
    {
      name: 'clearance-kit-is-a-library',
      comment: 'The clearance kit is shared by the clearance connectors: it builds on the SDK and needs nothing of theirs.',
      severity: 'error',
      from: { path: '^adapters/clearance-kit/' },
      to: { path: ['^services/', '^mixins/', 'node_modules/moleculer/', '^adapters/(?!clearance-kit/|sdk/)'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules', '^schematrons/[.]cache'] },
    tsPreCompilationDeps: true,
    parser: 'swc',
  },
};
