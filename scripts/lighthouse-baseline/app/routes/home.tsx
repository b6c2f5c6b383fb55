export function meta() {
  return [{ title: 'Baseline' }]
}

/** One heading and a paragraph, from a loader: server rendering, loader data and hydration, nothing else. */
export function loader() {
  return { words: 'React Router 7 in framework mode, React 19: what every page of the store pays before its own code.' }
}

export default function Home({ loaderData }: { loaderData: { words: string } }) {
  return (
    <main>
      <h1>Baseline</h1>
      <p>{loaderData.words}</p>
    </main>
  )
}
