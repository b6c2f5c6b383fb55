import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
// s3rver ships no types: the little of it used here.
// @ts-expect-error no declaration file
import S3rver from 's3rver'
import { createS3Client } from '#app/server/s3-storage.server.ts'

/** s3rver's default credentials, which it checks signatures with. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }

export type TestS3 = {
  endpoint: string
  bucket: string
  client: ReturnType<typeof createS3Client>
  /** Stops the server and removes its folder. */
  stop(): Promise<void>
  /** Stops answering (the port closed), keeping the objects: an outage of the object store. */
  pause(): Promise<void>
  /** Answers again, on the same port, with the same objects. */
  resume(): Promise<void>
}

/**
 * A real S3-compatible server (s3rver, objects in a temporary folder) on 127.0.0.1 and a free port, with one
 * empty bucket: what the storage tests run the S3 back end against (issue 32).
 */
export async function startTestS3(bucket = 'codebook-test'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-s3-'))
  const serve = (port: number) =>
    new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket }] })
  let server = serve(0)
  const address = (await server.run()) as { address: string; port: number }
  let running = true
  const endpoint = `http://127.0.0.1:${address.port}`
  const client = createS3Client({ endpoint, credentials: S3RVER_CREDENTIALS })
  return {
    endpoint,
    bucket,
    client,
    async stop() {
      client.destroy()
      if (running) await server.close()
      fs.rmSync(directory, { recursive: true, force: true })
    },
    async pause() {
      if (!running) return
      running = false
      await server.close()
    },
    async resume() {
      if (running) return
      server = serve(address.port)
      await server.run()
      running = true
    },
  }
}
