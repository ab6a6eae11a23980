/**
 * The TrasmissioneFatture endpoint: where the SDI posts its notifications on the files this
 * platform transmitted (RC, NS, MC, NE, DT, AT). Each is read (size-capped, hardened XML), handed to
 * the platform as a NetworkStatus correlated by IdentificativoSdI, remembered for `status`, and only
 * then acknowledged: a notification the platform could not record is answered with a SOAP Fault, so
 * the SDI delivers it again. One that names a file this platform never sent is acknowledged (and
 * logged): the SDI would otherwise repeat it forever.
 */
import type { ConnectorHost, InboundRequest, InboundResponse } from '../sdk/index.ts';
import { networkStatusOf, readNotification } from './notifications.ts';
import { NOTIFICATION_ACK, readFileSdIRequest, readSdiXml, SdiProtocolError, soapFault } from './soap.ts';
import { rememberNotification } from './state.ts';

const XML = { 'content-type': 'text/xml; charset=utf-8' };

export async function receiveNotification(req: InboundRequest, host: ConnectorHost): Promise<InboundResponse> {
  const maxBytes = Number(host.config.maxMessageBytes ?? 5 * 1024 * 1024);
  const expectedSubject = host.config.sdiCertificateSubject ? String(host.config.sdiCertificateSubject) : undefined;
  if (expectedSubject && !req.clientCertificate?.subject.includes(expectedSubject)) {
    return { status: 403, headers: XML, body: soapFault('Client', 'the client certificate is not the SDI\'s') };
  }
  let notification;
  try {
    if (req.body.length > maxBytes) throw new SdiProtocolError(`the request is ${req.body.length} bytes, over the ${maxBytes} allowed`);
    const fileSdI = readFileSdIRequest(req.body, req.headers['content-type'], { maxBytes, maxFileBytes: maxBytes });
    notification = readNotification(readSdiXml(fileSdI.file, maxBytes, `the ${fileSdI.operation} file`), fileSdI.operation);
    if (notification.identificativoSdI !== fileSdI.identificativoSdI) {
      throw new SdiProtocolError(`the ${fileSdI.operation} names IdentificativoSdI ${notification.identificativoSdI}, its request ${fileSdI.identificativoSdI}`);
    }
  } catch (err) {
    if (!(err instanceof SdiProtocolError)) throw err;
    host.log.warn('an SDI notification was refused', { reason: err.message });
    return { status: 400, headers: XML, body: soapFault('Client', err.message) };
  }
  const status = networkStatusOf(notification);
  let found: { documentId: string } | null;
  try {
    found = await host.outbound.statusReceived(status);
  } catch (err) {
    host.log.error('an SDI notification could not be recorded: the SDI will send it again', { identificativoSdI: notification.identificativoSdI, kind: notification.kind, reason: (err as Error).message });
    return { status: 500, headers: XML, body: soapFault('Server', 'the notification could not be recorded now; send it again') };
  }
  rememberNotification(host, notification);
  if (!found) host.log.warn('an SDI notification names no document this platform sent', { identificativoSdI: notification.identificativoSdI, kind: notification.kind });
  else host.log.info('SDI notification recorded', { documentId: found.documentId, identificativoSdI: notification.identificativoSdI, kind: notification.kind });
  return { status: 200, headers: XML, body: NOTIFICATION_ACK };
}
