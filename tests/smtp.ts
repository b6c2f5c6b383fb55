import type { AddressInfo } from 'node:net'
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import type { Db } from '#app/server/db/database.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createMailer, type Mailer } from '#app/server/mail.server.ts'
import { deliverDueEmails } from '#app/server/outbox.server.ts'

export type ReceivedMail = { envelope: { from: string | false; to: string[] }; parsed: ParsedMail }

export type TestSmtpServer = {
  url: string
  port: number
  received: ReceivedMail[]
  /** Answer every RCPT TO with a temporary refusal. */
  refuseRecipients: boolean
  /** Answer every message's DATA with this permanent refusal, e.g. '552 Message too large'. */
  refuseMessages: string | undefined
  /** When set, AUTH must use this password (and any AUTH with another fails). */
  acceptedPassword: string | undefined
  /** How many messages have been held so far. */
  held: number
  /** Holds the next message's DATA reply until the returned function is called. */
  holdNextMessage(): () => void
  close(): Promise<void>
}

/** A real SMTP server on a free local port, keeping what it accepts. */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  let nextHold: Promise<void> | undefined
  const state: TestSmtpServer = {
    url: '',
    port: 0,
    received: [],
    refuseRecipients: false,
    refuseMessages: undefined,
    acceptedPassword: undefined,
    held: 0,
    holdNextMessage() {
      let release!: () => void
      nextHold = new Promise((resolve) => (release = resolve))
      return release
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.password === state.acceptedPassword) callback(null, { user: auth.username })
      else callback(Object.assign(new Error('Authentication failed'), { responseCode: 535 }))
    },
    onRcptTo(address, _session, callback) {
      if (state.refuseRecipients) {
        // As real servers do, the refusal quotes the address.
        callback(
          Object.assign(new Error(`Mailbox <${address.address}> busy, try later`), { responseCode: 451 }),
        )
      } else callback()
    },
    onData(stream, session, callback) {
      if (state.refuseMessages) {
        const [code, ...words] = state.refuseMessages.split(' ')
        const refusal = Object.assign(new Error(words.join(' ')), { responseCode: Number(code) })
        stream.on('end', () => callback(refusal))
        stream.resume()
        return
      }
      const hold = nextHold
      nextHold = undefined
      if (hold) state.held++
      simpleParser(stream)
        .then(async (parsed) => {
          await hold
          state.received.push({
            envelope: {
              from: session.envelope.mailFrom && session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            },
            parsed,
          })
          callback()
        })
        .catch(callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.port = (server.server.address() as AddressInfo).port
  state.url = `smtp://127.0.0.1:${state.port}`
  return state
}

/** The store's mailer sending to `smtp`, as the store's would with SMTP_URL (From: the default MAIL_FROM). */
export function mailerFor(smtp: TestSmtpServer, logger = createLogger('silent')): Mailer {
  return createMailer({
    smtpUrl: smtp.url,
    from: 'CodeBook <orders@codebook.localhost>',
    outboxDir: '/nonexistent',
    logger,
  })
}

/**
 * Sends the mail due in the outbox through a real SMTP server (on a free port, closed again) and returns
 * what it received. Mail other tests of the file queued goes out too: a caller picks its own.
 */
export async function deliverOutboxOverSmtp(db: Db): Promise<ReceivedMail[]> {
  const smtp = await startSmtpServer()
  try {
    const logger = createLogger('silent')
    await deliverDueEmails(db, mailerFor(smtp, logger), { logger })
    return smtp.received
  } finally {
    await smtp.close()
  }
}

export function addresses(field: AddressObject | AddressObject[] | undefined) {
  return [field ?? []]
    .flat()
    .flatMap((object) => object.value.map(({ name, address }) => ({ name, address })))
}
