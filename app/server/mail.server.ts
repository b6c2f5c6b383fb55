import fs from 'node:fs/promises'
import path from 'node:path'
import nodemailer from 'nodemailer'
import type { Logger } from './logger.server.ts'

export type MailAttachment = { fileName: string; contentType: string; content: Uint8Array }

export type MailMessage = {
  to: string
  subject: string
  text: string
  html: string
  attachments?: MailAttachment[]
}

export type Mailer = {
  /** 'smtp': handed to the SMTP server at SMTP_URL; 'files': written as .eml files (no SMTP_URL). */
  kind: 'smtp' | 'files'
  send(message: MailMessage): Promise<{ messageId: string }>
}

export type MailerOptions = {
  /** smtp://user:pass@host:port or smtps://…; unset: write each message to `outboxDir` instead. */
  smtpUrl?: string
  /** The From header of every message: 'CodeBook <orders@example.com>'. */
  from: string
  outboxDir: string
  logger: Logger
}

/** Why a message could not be sent, with any SMTP password taken out of the text. */
export class MailError extends Error {
  override name = 'MailError'
  constructor(
    message: string,
    /** Nodemailer's code: 'ECONNECTION', 'EAUTH', 'EENVELOPE', 'ETIMEDOUT', … */
    readonly code: string | undefined,
    /** The SMTP reply code when the server refused (e.g. 550), so a caller may tell lasting from passing. */
    readonly responseCode: number | undefined,
  ) {
    super(message)
  }
}

// A mail server that stops answering must not hold a delivery run for minutes (nodemailer waits up to 10
// minutes on a silent socket by default).
const timeouts = {
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 10_000,
  dnsTimeout: 10_000,
}

/**
 * The one way the store sends mail. With SMTP_URL, a plain (unpooled) nodemailer SMTP transport: receipts
 * are few, so a connection per message costs little and holds nothing open between runs. Without it, each
 * message is rendered in full (RFC 5322, as it would go over the wire) and written to `outboxDir`, so a
 * fresh clone works offline and a developer can open the receipts in a mail client.
 */
export function createMailer(options: MailerOptions): Mailer {
  const { smtpUrl, from, outboxDir, logger } = options
  if (smtpUrl) {
    const url = new URL(smtpUrl)
    const password = decodeURIComponent(url.password)
    // logger: false keeps nodemailer's own logging (which can include the message) out of ours.
    const transport = nodemailer.createTransport({ url: smtpUrl, ...timeouts, logger: false })
    logger.info({ host: url.hostname, port: url.port || undefined }, 'mail goes out over SMTP')
    return {
      kind: 'smtp',
      async send(message) {
        try {
          const info = await transport.sendMail(envelopeOf(from, message))
          return { messageId: info.messageId }
        } catch (error) {
          throw toMailError(error, [password, url.password])
        }
      },
    }
  }

  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' })
  logger.info({ outboxDir }, 'no SMTP_URL: mail is written to the outbox folder')
  return {
    kind: 'files',
    async send(message) {
      let info
      try {
        info = await transport.sendMail(envelopeOf(from, message))
      } catch (error) {
        throw toMailError(error, [])
      }
      // buffer: true above makes it a Buffer; the check tells TypeScript (whose type also allows a stream).
      if (!Buffer.isBuffer(info.message))
        throw new MailError('the message was not rendered', undefined, undefined)
      const name = `${new Date().toISOString().replaceAll(':', '-')}-${fileSafe(info.messageId)}.eml`
      await writeAtomically(outboxDir, name, info.message)
      logger.info({ file: path.join(outboxDir, name) }, 'mail written to the outbox folder')
      return { messageId: info.messageId }
    },
  }
}

/** The message as nodemailer takes it: attachments as Buffers under its own names. */
function envelopeOf(from: string, { attachments = [], ...message }: MailMessage) {
  return {
    from,
    ...message,
    attachments: attachments.map(({ fileName, contentType, content }) => ({
      filename: fileName,
      contentType,
      content: Buffer.from(content.buffer, content.byteOffset, content.byteLength),
    })),
  }
}

/** Temp file then rename, so whoever watches the folder never opens half a message. */
async function writeAtomically(dir: string, name: string, content: Buffer) {
  await fs.mkdir(dir, { recursive: true })
  const temp = path.join(dir, `.${name}.tmp`)
  try {
    await fs.writeFile(temp, content, { flag: 'wx' })
    await fs.rename(temp, path.join(dir, name))
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
}

/** '<0b5f…@codebook.localhost>' → '0b5f…@codebook.localhost' */
function fileSafe(messageId: string) {
  return messageId.replace(/[^\w.@-]+/g, '').slice(0, 100) || 'message'
}

function toMailError(error: unknown, secrets: string[]): MailError {
  const details = error as { message?: unknown; code?: unknown; responseCode?: unknown }
  let message = typeof details.message === 'string' ? details.message : String(error)
  for (const secret of secrets) if (secret) message = message.replaceAll(secret, '***')
  // A server's refusal often quotes the recipient ('550 <reader@example.com>: User unknown'): logs and the
  // stored error keep the reason, not the reader's address.
  message = message.replace(/[^\s<>"'(),;:]+@[^\s<>"'(),;:]+/g, '***@***')
  return new MailError(
    message,
    typeof details.code === 'string' ? details.code : undefined,
    typeof details.responseCode === 'number' ? details.responseCode : undefined,
  )
}
