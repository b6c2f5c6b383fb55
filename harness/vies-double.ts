import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'

/** The recorded answers, one file per case; read as files, as the harness may not import tests/. */
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../tests/fixtures/vies')

/** A number the double never answers (the connection stays open until `stop`): the client's timeout. */
export const VIES_DOUBLE_HANGS = { countryCode: 'EL', vatNumber: '094012834' } as const

export type ViesDoubleRequest = {
  countryCode: string
  vatNumber: string
  requesterMemberStateCode?: string
  requesterNumber?: string
}

export type ViesDouble = {
  /** The REST API's base URL, in place of https://ec.europa.eu/taxation_customs/vies/rest-api. */
  url: string
  /** Every check-vat-number request received, in order. */
  requests: ViesDoubleRequest[]
  stop(): Promise<void>
}

const RecordedSchema = z.object({
  request: z.object({ countryCode: z.string(), vatNumber: z.string() }),
  response: z.object({
    status: z.number().int(),
    contentType: z.string().default('application/json'),
    /** A JSON answer, or `text` sent byte for byte (a truncated or HTML answer). */
    json: z.unknown().optional(),
    text: z.string().optional(),
  }),
})
type Recorded = z.infer<typeof RecordedSchema>

const AskedSchema = z.object({
  countryCode: z.string(),
  vatNumber: z.string(),
  requesterMemberStateCode: z.string().optional(),
  requesterNumber: z.string().optional(),
})

/**
 * A local stand-in for the VIES REST API (issue 31): `POST /check-vat-number` answers each VAT number with its
 * recorded answer from tests/fixtures/vies/, so the real client is tested over real HTTP without the network.
 * A number with no recording is a 404 naming it, so a test asking for the wrong one fails loudly.
 */
export async function startViesDouble(): Promise<ViesDouble> {
  const answers = loadRecordedAnswers()
  const requests: ViesDoubleRequest[] = []
  const hanging = new Set<http.ServerResponse>()

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/check-vat-number') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`no ${req.method} ${req.url} here`)
        return
      }
      const asked = AskedSchema.safeParse(parseJson(Buffer.concat(chunks).toString('utf8')))
      if (!asked.success) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('expected { countryCode, vatNumber }')
        return
      }
      requests.push(asked.data)
      const { countryCode, vatNumber } = asked.data
      if (countryCode === VIES_DOUBLE_HANGS.countryCode && vatNumber === VIES_DOUBLE_HANGS.vatNumber) {
        hanging.add(res)
        return
      }
      const recorded = answers.get(countryCode + vatNumber)
      if (!recorded) {
        res
          .writeHead(404, { 'content-type': 'text/plain' })
          .end(`no recorded answer for ${countryCode}${vatNumber}`)
        return
      }
      const { status, contentType, json, text } = recorded.response
      res.writeHead(status, { 'content-type': contentType }).end(text ?? JSON.stringify(json))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async stop() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      )
    },
  }
}

/** By prefix and number ('DE111111125'); a fixture that does not parse stops the double with its name. */
function loadRecordedAnswers(): Map<string, Recorded> {
  const answers = new Map<string, Recorded>()
  for (const file of fs.readdirSync(FIXTURES).filter((name) => name.endsWith('.json'))) {
    const parsed = RecordedSchema.safeParse(JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')))
    if (!parsed.success) throw new Error(`tests/fixtures/vies/${file}: ${parsed.error.message}`)
    const { countryCode, vatNumber } = parsed.data.request
    answers.set(countryCode + vatNumber, parsed.data)
  }
  return answers
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
