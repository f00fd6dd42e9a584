import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A self-signed P-256 certificate valid for a day, made with openssl in `directory`, for tests of TLS listeners and
 * the clients that dial them. `subjectAltName` as openssl takes it, e.g. `DNS:localhost,IP:127.0.0.1`.
 */
export function selfSignedCertificate(
  directory: string,
  subjectAltName = 'DNS:localhost,IP:127.0.0.1',
): { keyFile: string; certFile: string; key: string; cert: string } {
  const keyFile = path.join(directory, 'key.pem');
  const certFile = path.join(directory, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      `subjectAltName=${subjectAltName}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { keyFile, certFile, key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
}
