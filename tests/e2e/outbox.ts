import fs from 'node:fs/promises'
import path from 'node:path'
import { simpleParser, type ParsedMail } from 'mailparser'
import { expect } from 'vitest'

/**
 * A mail the store wrote to `dataDir`/outbox (these stores have no SMTP_URL) that `matches`, parsed, once it
 * is there: the test fails if none arrives within `timeout` ms.
 */
export async function mailInOutbox(
  dataDir: string,
  matches: (mail: ParsedMail) => boolean,
  timeout: number,
): Promise<ParsedMail> {
  const outbox = path.join(dataDir, 'outbox')
  let found: ParsedMail | undefined
  await expect
    .poll(
      async () => {
        for (const name of await fs.readdir(outbox).catch(() => [])) {
          const mail = await simpleParser(await fs.readFile(path.join(outbox, name)))
          if (matches(mail)) found = mail
        }
        return found !== undefined
      },
      { timeout },
    )
    .toBe(true)
  return found!
}
