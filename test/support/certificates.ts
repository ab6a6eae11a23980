/**
 * Self-signed certificates for the other side of a test: a partner's client certificate, an SMP
 * nobody trusts, a TLS server on 127.0.0.1 (with the IP in its subjectAltName).
 */
import forge from 'node-forge';

export function selfSignedCertificate(cn: string, options: { ip?: string; bits?: number } = {}): { certPem: string; keyPem: string } {
  const keys = forge.pki.rsa.generateKeyPair(options.bits ?? 2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 30 * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: cn }]);
  cert.setIssuer([{ name: 'commonName', value: cn }]);
  if (options.ip) cert.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 7, ip: options.ip }] }]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}
