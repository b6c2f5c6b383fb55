import { describe, expect, test } from 'vitest'
import { parseVatNumber } from './vat-number.ts'

/**
 * Valid and invalid numbers are from jsvat's own lists (github.com/se-panfilov/jsvat,
 * test/countries_vat_lists/*.vat.js; the package ships only its README's BE0411905847 and ATU12011204), so
 * their check digits are right or wrong by jsvat's arithmetic, not ours.
 */
describe('numbers jsvat knows to be valid', () => {
  test.each([
    ['DE111111125', 'DE', 'DE', '111111125'],
    ['ATU12011204', 'AT', 'AT', 'U12011204'],
    ['BE0411905847', 'BE', 'BE', '0411905847'],
    ['FR40303265045', 'FR', 'FR', '40303265045'],
    ['IE8Z49289F', 'IE', 'IE', '8Z49289F'],
    ['IE2984579BH', 'IE', 'IE', '2984579BH'],
    ['ESB12398087', 'ES', 'ES', 'B12398087'],
    ['IT00000010215', 'IT', 'IT', '00000010215'],
    ['NL010000446B01', 'NL', 'NL', '010000446B01'],
    ['CY10000314J', 'CY', 'CY', '10000314J'],
    ['EL094012834', 'EL', 'GR', '094012834'],
  ])('%s is accepted as %s (%s)', (input, countryCode, isoCountry, number) => {
    expect(parseVatNumber(input)).toEqual({
      ok: true,
      countryCode,
      isoCountry,
      number,
      formatted: countryCode + number,
    })
  })

  test('spaces, dots, dashes and lower case are what people type', () => {
    expect(parseVatNumber('  de 111.111-125 ')).toMatchObject({ ok: true, formatted: 'DE111111125' })
    expect(parseVatNumber('nl 0100.00446.b01')).toMatchObject({ ok: true, formatted: 'NL010000446B01' })
    expect(parseVatNumber('DE\u00a0111\u2013111\u2013125')).toMatchObject({
      ok: true,
      formatted: 'DE111111125',
    })
  })

  test('without its prefix, the number is read as the billing country’s', () => {
    expect(parseVatNumber('111111125', 'DE')).toMatchObject({ ok: true, formatted: 'DE111111125' })
    expect(parseVatNumber('U12011204', 'at')).toMatchObject({ ok: true, formatted: 'ATU12011204' })
    expect(parseVatNumber('094012834', 'GR')).toMatchObject({ ok: true, countryCode: 'EL', isoCountry: 'GR' })
  })

  test('Greece: GR typed is read as EL, the prefix VIES knows', () => {
    expect(parseVatNumber('GR094012834')).toMatchObject({ ok: true, formatted: 'EL094012834' })
    expect(parseVatNumber('EL094012834', 'GR')).toMatchObject({ ok: true, isoCountry: 'GR' })
  })

  test('a French number whose check characters are letters is read as French for a French buyer', () => {
    // jsvat's FRAB012345678, typed without FR: AB is no country, so it is the billing country's.
    expect(parseVatNumber('AB012345678', 'FR')).toMatchObject({ ok: true, formatted: 'FRAB012345678' })
    expect(parseVatNumber('FRA0123456789')).toMatchObject({ ok: true, number: 'A0123456789' })
  })

  test('Northern Ireland: XI and a UK number jsvat knows, its ISO country GB', () => {
    // GB000472631 is in jsvat's list of valid UK numbers.
    expect(parseVatNumber('XI000472631', 'GB')).toEqual({
      ok: true,
      countryCode: 'XI',
      isoCountry: 'GB',
      number: '000472631',
      formatted: 'XI000472631',
    })
    expect(parseVatNumber('XI 000 472 631', 'XI')).toMatchObject({ ok: true, formatted: 'XI000472631' })
    expect(parseVatNumber('XI001515146')).toMatchObject({ ok: false })
  })
})

describe('refused, with a message for the field', () => {
  test('a wrong format says what the country’s numbers look like', () => {
    expect(parseVatNumber('DE12345')).toEqual({
      ok: false,
      message: 'That is not a valid German VAT number: it should be DE followed by 9 digits.',
    })
    expect(parseVatNumber('ATV66889218')).toEqual({
      ok: false,
      message: 'That is not a valid Austrian VAT number: it should be ATU followed by 8 digits.',
    })
    expect(parseVatNumber('12345', 'NL')).toMatchObject({
      message:
        'That is not a valid Dutch VAT number: it should be NL followed by 9 digits, the letter B and 2 digits.',
    })
    expect(parseVatNumber('EL12345678A')).toMatchObject({
      message: expect.stringContaining('valid Greek VAT'),
    })
  })

  test('characters other than letters and digits are not dropped silently', () => {
    // jsvat itself would drop the slashes and accept DE111111125.
    expect(parseVatNumber('DE111/111/125')).toMatchObject({
      ok: false,
      message: expect.stringContaining('German'),
    })
  })

  test.each([
    ['DE111111126', 'German'],
    ['ATU10223001', 'Austrian'],
    ['FR00300076967', 'French'],
    ['NL010000445B01', 'Dutch'],
    ['EL000000022', 'Greek'],
    ['IE8Z49289A', 'Irish'],
    ['ESA0011012A', 'Spanish'],
    ['IT00000010210', 'Italian'],
  ])('%s has the right shape but wrong check digits', (input, adjective) => {
    expect(parseVatNumber(input)).toEqual({
      ok: false,
      message: `That is not a valid ${adjective} VAT number: its check digits do not match. Please look for a typo.`,
    })
  })

  test('a number from another country than the billing country', () => {
    expect(parseVatNumber('ATU12011204', 'DE')).toEqual({
      ok: false,
      message: 'The VAT number must be from your billing country, Germany; this one is from Austria.',
    })
    expect(parseVatNumber('EL094012834', 'CY')).toMatchObject({
      message: 'The VAT number must be from your billing country, Cyprus; this one is from Greece.',
    })
    expect(parseVatNumber('DE111111125', 'US')).toMatchObject({
      message: 'The VAT number must be from your billing country, United States; this one is from Germany.',
    })
  })

  test('numbers from outside the EU give no reverse charge, whatever their check digits', () => {
    // Valid numbers in jsvat's lists for the UK, Norway and Switzerland.
    expect(parseVatNumber('GB000472631')).toEqual({
      ok: false,
      message:
        'Reverse charge applies only to VAT numbers from EU member states; this one is from United Kingdom. ' +
        'A business in Northern Ireland can give its XI number.',
    })
    expect(parseVatNumber('NO864234232', 'NO')).toEqual({
      ok: false,
      message: 'Reverse charge applies only to VAT numbers from EU member states; this one is from Norway.',
    })
    expect(parseVatNumber('CHE-432.825.998 MWST')).toMatchObject({
      message: expect.stringContaining(
        'only to VAT numbers from EU member states; this one is from Switzerland',
      ),
    })
    // Typed without prefix by a buyer billed in the UK.
    expect(parseVatNumber('000472631', 'GB')).toMatchObject({ message: expect.stringContaining('XI number') })
  })

  test('without a prefix or a billing country, it asks for the country’s letters', () => {
    const expected = {
      ok: false,
      message: 'Start the VAT number with its country’s two letters, for example DE or FR (EL for Greece).',
    }
    expect(parseVatNumber('111111125')).toEqual(expected)
    expect(parseVatNumber('AB012345678')).toEqual(expected)
    expect(parseVatNumber('ZZ111111125')).toEqual(expected)
  })

  test('an empty field', () => {
    expect(parseVatNumber(' - . ')).toEqual({ ok: false, message: 'Enter your VAT number.' })
  })

  test('a billing country that is not ISO alpha-2 is the caller’s mistake', () => {
    expect(() => parseVatNumber('DE111111125', 'Germany')).toThrow(TypeError)
  })
})
