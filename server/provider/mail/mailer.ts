import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../../common/log.js';
import type { Db } from '../db/database.js';
import { newRecordId } from '../db/ids.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** The one-time code the message carries, if any. */
  code?: string;
}

export interface Mailer {
  /** Sends (SMTP) or files (sandbox mailbox) one message. Never throws for a delivery failure. */
  send(mail: OutgoingMail): Promise<void>;
}

const FROM = process.env.SMTP_FROM || 'kasir sandbox <no-reply@kasir.test>';

/** Masks an address for the log: m*****t@sandbox.kasir.test. */
function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  const local = email.slice(0, at);
  return `${local[0]}${'*'.repeat(Math.max(1, local.length - 2))}${local.length > 1 ? local[local.length - 1] : ''}${email.slice(at)}`;
}

/**
 * The sandbox mailbox: mail is kept in the database and announced in the log. In sandbox mode the line carries the
 * subject, and so the code (docs/design.md, "Accounts, login, OTP": the sandbox prints its mail to the log; a sandbox
 * OTP, never a password or secret). Outside sandbox mode without SMTP, the line only says that mail went nowhere, with
 * the address masked.
 */
function mailboxMailer(db: Db, now: () => Date, logger: Logger, sandbox: boolean): Mailer {
  return {
    async send(mail) {
      await db
        .insertInto('sandbox_mailbox')
        .values({
          id: newRecordId(),
          to_email: mail.to.toLowerCase(),
          subject: mail.subject,
          body: mail.text,
          code: mail.code ?? null,
          created_at: now().toISOString(),
        })
        .execute();
      // The sandbox mailbox keeps a day of mail.
      if (Math.random() < 0.01) {
        await db
          .deleteFrom('sandbox_mailbox')
          .where('created_at', '<', new Date(now().getTime() - 24 * 3600_000).toISOString())
          .execute();
      }
      if (sandbox) logger.info({ to: mail.to, subject: mail.subject }, 'sandbox mailbox');
      else
        logger.warn({ to: maskEmail(mail.to) }, 'mail kept in the sandbox mailbox, not sent: set SMTP_URL to send it');
    },
  };
}

/** SMTP through nodemailer. Sends in the background so a request never waits on (or reveals) the mail server. */
function smtpMailer(
  smtpUrl: string,
  logger: Logger,
  transporter: Transporter = nodemailer.createTransport(smtpUrl),
): Mailer {
  return {
    async send(mail) {
      transporter
        .sendMail({ from: FROM, to: mail.to, subject: mail.subject, text: mail.text })
        .catch((err: unknown) => {
          // Neither the subject (it may hold a code) nor the full address.
          logger.error(
            { to: maskEmail(mail.to), err: err instanceof Error ? err.message : 'error' },
            'could not send mail',
          );
        });
    },
  };
}

/** The mailer the configuration asks for (one per service, deps.mailer): SMTP when SMTP_URL is set, else the sandbox mailbox. */
export function createMailer(
  config: { smtpUrl?: string; sandbox: boolean },
  db: Db,
  now: () => Date,
  logger: Logger,
): Mailer {
  return config.smtpUrl ? smtpMailer(config.smtpUrl, logger) : mailboxMailer(db, now, logger, config.sandbox);
}

export function otpMail(to: string, code: string, purpose: 'register' | 'login', minutes: number): OutgoingMail {
  const action = purpose === 'register' ? 'finish creating your kasir account' : 'sign in to kasir';
  return {
    to,
    subject: `Your kasir code: ${code}`,
    code,
    text: `Use this code to ${action}: ${code}\n\nIt is valid for ${minutes} minutes and can be used once.\nIf you did not ask for it, ignore this message; your password was not used without the code.\n`,
  };
}

export function accountExistsMail(to: string): OutgoingMail {
  return {
    to,
    subject: 'Someone tried to register with your email',
    text: 'An account for this email already exists, so no new account was created.\nTo sign in, use "log in"; if that was not you, no action is needed.\n',
  };
}
