import { webcrypto } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';

/** An https server on loopback that serves whatever trusted list the test sets, under a throwaway certificate. */
export interface ListServer {
  url: string;
  /** the server's self-signed certificate (PEM): the CA a client must be told to trust (EU_AV_TRUSTED_LIST_CA) */
  certificate: string;
  /** what the next request gets: the list's text (or a status list token's bytes), a status with no list, or (null) no answer at all */
  serve(answer: string | Buffer | number | null): void;
  /** how many requests it has taken */
  requests(): number;
  close(): Promise<void>;
}

const ES256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

/** Starts the server; clients trust its certificate as an operator's mirror under a private CA, through EU_AV_TRUSTED_LIST_CA. */
export async function startListServer(): Promise<ListServer> {
  const keys = (await webcrypto.subtle.generateKey(ES256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=127.0.0.1',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    keys,
    signingAlgorithm: ES256,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }])],
  });
  const key = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  let answer: string | Buffer | number | null = 404;
  let requests = 0;
  const server = createServer({ key, cert: certificate.toString('pem') }, (request, response) => {
    requests += 1;
    if (answer === null) return; // the connection stays open, the request unanswered
    if (typeof answer === 'number') {
      response.writeHead(answer).end();
    } else {
      response
        .writeHead(200, {
          'content-type': typeof answer === 'string' ? 'application/xml' : 'application/statuslist+cwt',
        })
        .end(answer);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/trusted-list.xml`,
    certificate: certificate.toString('pem'),
    serve: (next) => {
      answer = next;
    },
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
