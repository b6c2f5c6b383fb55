import { expect, test } from 'vitest'
import commonPasswordList from './data/common-passwords.json' with { type: 'json' }
import { isCommonPassword, RegisterSchema } from './credentials.server.ts'
import { identityMessages } from './credentials.ts'

test('the shipped list holds the 10,000 most common passwords, most common first', () => {
  expect(commonPasswordList).toHaveLength(10_000)
  expect(new Set(commonPasswordList).size).toBe(10_000)
  expect(commonPasswordList.slice(0, 5)).toEqual(['123456', 'password', '12345678', 'qwerty', '123456789'])
  expect(commonPasswordList.every((password) => password === password.toLowerCase())).toBe(true)
})

test.each([
  'password',
  'PASSWORD',
  'baseball',
  'iloveyou',
  'trustno1',
  'football',
  'qwertyuiop',
  // Not in the 2011 list the store shipped before; ranked ~795 in the Xato corpus.
  'password123',
  'Password123',
])('%s is common', (password) => expect(isCommonPassword(password)).toBe(true))

test.each(['correct horse battery staple', 'Tr0ub4dor&3x', 'codebook reader 2026'])('%s is not', (password) =>
  expect(isCommonPassword(password)).toBe(false),
)

test('registration says why a password was refused, and allows any long enough uncommon one', () => {
  const refused = RegisterSchema.safeParse({ email: 'a@example.com', password: 'sunshine' })
  expect(refused.error?.issues.map((issue) => issue.message)).toEqual([identityMessages.passwordCommon])
  // No composition rules: lower-case words, spaces, any script.
  for (const password of ['plain lower words', 'пароль для книги', '        spaces  '])
    expect(RegisterSchema.safeParse({ email: 'a@example.com', password }).success).toBe(true)
})
