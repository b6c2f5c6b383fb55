/** Text made safe to put in HTML (an element's content or a quoted attribute): mails, plain error pages. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
