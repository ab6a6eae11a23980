/** With EINV_REQUEST_LOG_READS=true the request log also keeps successful reads. */
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';

process.env.EINV_REQUEST_LOG_READS = 'true';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

it('logs successful GETs too, and they count in the summary', async () => {
  const { apiKey } = await bootstrap(t.baseUrl);
  const me = await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey });
  expect(me.status).toBe(200);
  const gateway = t.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } };
  await gateway.guarantees.log.flush();
  const list = await api(t.baseUrl, 'GET', '/v1/requests?method=GET', { key: apiKey });
  expect(list.body.data).toEqual([expect.objectContaining({ id: me.headers.get('x-request-id'), method: 'GET', path: '/v1/me', status: 200 })]);
  await gateway.guarantees.log.flush();
  const summary = await api(t.baseUrl, 'GET', '/v1/requests/summary', { key: apiKey });
  // /v1/me and the list read before it.
  expect(summary.body.data[0]).toMatchObject({ totalRequests: 2, errorRequests: 0, throttledRequests: 0 });
});
