import { describe, expect, test } from 'vitest'
import { hashPassword, verifyPassword } from './password.server.ts'

describe('password hashing (Argon2id)', () => {
  test('the right password verifies and a wrong one does not', async () => {
    const hash = await hashPassword('correct horse battery staple')
    await expect(verifyPassword({ hash, password: 'correct horse battery staple' })).resolves.toBe(true)
    await expect(verifyPassword({ hash, password: 'correct horse battery stapler' })).resolves.toBe(false)
    await expect(verifyPassword({ hash, password: '' })).resolves.toBe(false)
  })

  test('two hashes of the same password differ (random salt) and both verify', async () => {
    const first = await hashPassword('same password')
    const second = await hashPassword('same password')
    expect(first).not.toBe(second)
    await expect(verifyPassword({ hash: second, password: 'same password' })).resolves.toBe(true)
  })

  test('the PHC string names Argon2id with the OWASP parameters', async () => {
    const hash = await hashPassword('any password')
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
  })

  test('a password verifies whether its accents were typed composed or decomposed', async () => {
    const hash = await hashPassword('café crème') // é as one code point
    await expect(verifyPassword({ hash, password: 'cafe\u0301 cre\u0300me' })).resolves.toBe(true)
  })

  test('a stored value that is not an Argon2 hash is an error, not a wrong password', async () => {
    await expect(verifyPassword({ hash: 'abcd:ef01', password: 'anything' })).rejects.toThrow(
      'Decoding failed',
    )
  })
})
