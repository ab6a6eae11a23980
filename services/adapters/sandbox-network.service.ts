import { connectorService } from './connector-service.ts';
import { sandboxNetworkConnector } from '../../adapters/sandbox-network/sandbox-network.connector.ts';
export default connectorService(sandboxNetworkConnector);
