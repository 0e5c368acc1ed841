import type { Transporter } from 'nodemailer';
import type { Logger } from '../log.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; throws MailUnavailableError when the mail server cannot take it. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export class MailUnavailableError extends Error {
  override name = 'MailUnavailableError';
}

export interface MailSettings {
  /** smtp://user:pass@host:port, smtps://… (implicit TLS), or `console` (development: mails are printed, not sent) */
  smtpUrl: string;
  /** the From header, e.g. "Age Provider <no-reply@age.example>" */
  from: string;
  /** connection, greeting and socket timeout in milliseconds */
  timeoutMs: number;
}

/**
 * SMTP through nodemailer, or with SMTP_URL=console a development transport that prints each whole mail on stdout.
 * Only the server's answer code is logged: a mail address never reaches the logs.
 */
export function createMailer(
  settings: MailSettings,
  log: Logger,
  print: (text: string) => void = (text) => process.stdout.write(text),
): Mailer {
  const toConsole = settings.smtpUrl === 'console';
  // nodemailer is loaded with the first mail, not at start-up: only the email challenge sends mail, and the module
  // costs memory in every server that never does (docs/performance.md "Measurements behind code choices").
  let transport: Promise<Transporter> | undefined;
  const connect = async (): Promise<Transporter> => {
    const { default: nodemailer } = await import('nodemailer');
    return toConsole
      ? nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
      : nodemailer.createTransport({
          url: settings.smtpUrl,
          connectionTimeout: settings.timeoutMs,
          greetingTimeout: settings.timeoutMs,
          socketTimeout: settings.timeoutMs,
        });
  };
  return {
    async send(mail) {
      try {
        // A transport that could not be made is tried again with the next mail, and reported like a refused send.
        const transporter = await (transport ??= connect().catch((error: unknown) => {
          transport = undefined;
          throw error;
        }));
        const info = await transporter.sendMail({
          from: settings.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
        });
        if (toConsole)
          print(
            `----- mail (SMTP_URL=console, not sent) -----\n${String((info as { message?: unknown }).message)}\n-----\n`,
          );
      } catch (error) {
        const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
        log.warn('mail not sent', { code: String(code ?? 'unknown'), responseCode: Number(responseCode) || undefined });
        throw new MailUnavailableError('mail not sent');
      }
    },
  };
}
