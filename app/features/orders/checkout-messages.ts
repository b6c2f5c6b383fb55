/** The checkout form's words, shared by the browser (required-field messages) and the server's schema. */
export const checkoutMessages = {
  nameMissing: 'Please type the name on the card',
  numberMissing: 'Please type the card number',
  numberInvalid: 'This card number is not valid. Please check it.',
  expiryInvalid: 'Please type the expiry date as MM/YY',
  expiryPast: 'This card has expired.',
  cvcInvalid: 'The security code is the 3 or 4 digits on the card',
} as const

export type CheckoutField = 'name' | 'number' | 'expiry' | 'cvc'

/** What the browser says of a card field left empty: the words the server's schema answers with. */
export const emptyCardFieldMessages: Record<CheckoutField, string> = {
  name: checkoutMessages.nameMissing,
  number: checkoutMessages.numberMissing,
  expiry: checkoutMessages.expiryInvalid,
  cvc: checkoutMessages.cvcInvalid,
}
