/**
 * The connectors this platform ships (manifests only: the router decides from them; each one runs
 * as its own `adapter.<id>` service).
 */
import type { ConnectorManifest } from '../../adapters/sdk/index.ts';
import { sandboxNetworkConnector } from '../../adapters/sandbox-network/sandbox-network.connector.ts';

export const CONNECTOR_MANIFESTS: readonly ConnectorManifest[] = [sandboxNetworkConnector.manifest];
