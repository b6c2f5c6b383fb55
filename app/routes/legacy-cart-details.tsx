// Placeholder until the cart lands (issue 3).
export default function Placeholder() {
  return null
}
