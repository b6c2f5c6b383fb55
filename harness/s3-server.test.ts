import net from 'node:net'
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createS3Client } from '#app/server/s3-storage.server.ts'
import { S3RVER_CREDENTIALS, startTestS3, type TestS3 } from './s3-server.ts'

/** The test double keeps S3's contract, which s3rver alone does not: an object appears whole or not at all. */
let s3: TestS3
beforeAll(async () => {
  s3 = await startTestS3('contract')
})
afterAll(async () => {
  await s3?.stop()
})

/**
 * A proxy to the S3 server that cuts an upload's connection after `bytes` bytes and a pause, as a writer killed
 * mid-way would.
 */
async function cuttingUploads(endpoint: string, bytes: number) {
  const target = new URL(endpoint)
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname)
    let sent = 0
    client.on('data', (chunk: Buffer) => {
      if (sent >= bytes) return
      if (sent + chunk.length > bytes) {
        // The first part, then nothing for a moment (the server is storing it), then the connection dies.
        upstream.write(chunk.subarray(0, bytes - sent))
        sent = bytes
        setTimeout(() => {
          upstream.destroy()
          client.destroy()
        }, 300)
        return
      }
      sent += chunk.length
      upstream.write(chunk)
    })
    upstream.on('data', (chunk) => client.write(chunk))
    for (const socket of [client, upstream])
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() }
}

async function read(key: string): Promise<Uint8Array | null> {
  try {
    const got = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))
    return await got.Body!.transformToByteArray()
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') return null
    throw error
  }
}

test('an upload cut mid-way is not stored: a new key stays missing, an old one keeps its whole version', async () => {
  const proxy = await cuttingUploads(s3.endpoint, 20_000)
  const cutting = createS3Client({ endpoint: proxy.endpoint, credentials: S3RVER_CREDENTIALS })
  const upload = (key: string, fill: number) =>
    cutting.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: new Uint8Array(200_000).fill(fill) }),
    )
  try {
    await expect(upload('new.bin', 1)).rejects.toThrow()
    // s3rver alone kept the 20 KB it had received as the object.
    expect(await read('new.bin')).toBeNull()

    await s3.client.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: 'old.bin', Body: new Uint8Array(100_000).fill(2) }),
    )
    await expect(upload('old.bin', 3)).rejects.toThrow()
    expect(await read('old.bin')).toEqual(new Uint8Array(100_000).fill(2))
  } finally {
    cutting.destroy()
    proxy.close()
  }
})

test('a read while the object is replaced gets one whole version, never part of one', async () => {
  const size = 2 * 1024 * 1024
  const versions = [new Uint8Array(size).fill(0x61), new Uint8Array(size / 2).fill(0x62)]
  await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'big.bin', Body: versions[0] }))
  let writing = true
  const seen: string[] = []
  const readers = Promise.all(
    Array.from({ length: 3 }, async () => {
      while (writing) {
        const bytes = (await read('big.bin'))!
        const first = bytes[0]!
        expect(bytes.length).toBe(first === 0x61 ? size : size / 2)
        expect(bytes.every((byte) => byte === first)).toBe(true)
        seen.push(String.fromCharCode(first))
      }
    }),
  )
  for (let i = 1; i <= 12; i++)
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'big.bin', Body: versions[i % 2] }))
  writing = false
  await readers
  expect(seen.length).toBeGreaterThan(0)
})
