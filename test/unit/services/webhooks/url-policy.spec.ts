import { isPrivateAddress, privateTargetProblem, urlShapeProblem } from '../../../../services/shared/url-policy.ts';

describe('receiver URL policy', () => {
  it('classifies loopback, private, link-local, CGNAT, multicast and mapped addresses as private', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.5', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.1.1.1']) {
      expect([a, isPrivateAddress(a)]).toEqual([a, true]);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect([a, isPrivateAddress(a)]).toEqual([a, false]);
  });

  it('live webhooks need HTTPS without credentials; sandbox webhooks may use http', () => {
    expect(urlShapeProblem('https://example.com/h', true)).toBeUndefined();
    expect(urlShapeProblem('http://example.com/h', true)).toMatch(/HTTPS/);
    expect(urlShapeProblem('http://127.0.0.1:8080/h', false)).toBeUndefined();
    expect(urlShapeProblem('https://u:p@example.com/h', true)).toMatch(/credentials/);
    expect(urlShapeProblem('ftp://example.com', false)).toMatch(/http/);
    expect(urlShapeProblem('not a url', false)).toMatch(/absolute/);
  });

  it('refuses literal and resolved private targets', async () => {
    expect(await privateTargetProblem('https://127.0.0.1/h')).toMatch(/private or loopback/);
    expect(await privateTargetProblem('https://[::1]:8443/h')).toMatch(/private or loopback/);
    expect(await privateTargetProblem('https://localhost/h')).toMatch(/private or loopback|does not resolve/);
    expect(await privateTargetProblem('https://93.184.216.34/h')).toBeUndefined();
  });
});
