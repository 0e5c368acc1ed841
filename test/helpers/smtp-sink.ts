import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

/**
 * A minimal SMTP server on loopback that accepts every message (RFC 5321 commands only: EHLO/HELO, MAIL, RCPT,
 * DATA, RSET, NOOP, QUIT). Our mailer reaches it through nodemailer's real SMTP client.
 */
export async function startSmtpSink(): Promise<{ url: string; mails: ReceivedMail[]; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    let buffer = '';
    let current: ReceivedMail = { from: '', to: [], data: '' };
    let inData = false;
    socket.write('220 sink ESMTP\r\n');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end).replace(/^\.\./gm, '.');
          buffer = buffer.slice(end + 5);
          mails.push(current);
          current = { from: '', to: [], data: '' };
          inData = false;
          socket.write('250 OK queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-sink\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL') {
          current.from = line;
          socket.write('250 OK\r\n');
        } else if (verb === 'RCPT') {
          current.to.push(line);
          socket.write('250 OK\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
          return;
        } else socket.write('250 OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The mails received for `email`, in order. */
export const mailsTo = (mails: readonly ReceivedMail[], email: string): ReceivedMail[] =>
  mails.filter((mail) => mail.to.some((to) => to.includes(email)));

/** The `count`th mail to `email`, waited for (our mails leave after the answer that promised them). */
export async function mailNumber(mails: readonly ReceivedMail[], email: string, count: number): Promise<ReceivedMail> {
  for (let waited = 0; mailsTo(mails, email).length < count; waited++) {
    if (waited > 200) throw new Error(`no mail number ${count} to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return mailsTo(mails, email)[count - 1]!;
}

/** A mail's body as its reader sees it: quoted-printable soft line breaks joined and =XX bytes decoded (UTF-8). */
export const bodyOf = (mail: ReceivedMail): string => {
  const joined = mail.data.replace(/=\r?\n/g, '');
  return Buffer.from(
    joined.replace(/=([0-9A-F]{2})/g, (_whole, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
};
