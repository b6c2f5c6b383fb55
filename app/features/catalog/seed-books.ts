// The seed catalogue of eBooks, loaded idempotently into the database at start-up.

export type SeedBook = {
  slug: string
  title: string
  author: string
  description: string
  priceCents: number
  currency: 'USD'
  coverPath: string
  coverAlt: string
  rating: number
  bestSeller: boolean
  available: boolean
  fileSizeBytes: number
  featured: boolean
  featuredPosition: number | null
  /** The slugs of its topics, in order; their names are seedTopicNames'. */
  topics: string[]
}

/** The names of the seed's topics by slug (as the store showed them before topics were named things). */
export const seedTopicNames: ReadonlyMap<string, string> = new Map([
  ['accessibility', 'Accessibility'],
  ['api', 'APIs'],
  ['async', 'Asynchronous Programming'],
  ['backend', 'Backend'],
  ['blockchain', 'Blockchain'],
  ['css', 'CSS'],
  ['cryptography', 'Cryptography'],
  ['databases', 'Databases'],
  ['design', 'Design'],
  ['django', 'Django'],
  ['docker', 'Docker'],
  ['frontend', 'Frontend'],
  ['go', 'Go'],
  ['hooks', 'Hooks'],
  ['html', 'HTML'],
  ['javascript', 'JavaScript'],
  ['networking', 'Networking'],
  ['node', 'Node.js'],
  ['programming', 'Programming'],
  ['projects', 'Projects'],
  ['python', 'Python'],
  ['react', 'React'],
  ['testing', 'Testing'],
  ['web', 'Web Development'],
])

export function seedTopicName(slug: string): string {
  const name = seedTopicNames.get(slug)
  if (!name) throw new Error(`The seed topic ${slug} has no name`)
  return name
}

export const seedBooks: readonly SeedBook[] = [
  {
    slug: 'complete-guide-to-backend-development',
    title: 'Complete Guide to Backend Development',
    author: 'Marisol Okafor',
    description:
      'Design, build and deploy a production-ready REST API with Node.js, PostgreSQL and Redis. You model relational data, write migrations, add session and token authentication, cache hot queries, and ship the service in a Docker container with structured logging and health checks.',
    priceCents: 9900,
    currency: 'USD',
    coverPath: '/covers/complete-guide-to-backend-development.svg',
    coverAlt: 'Cover of Complete Guide to Backend Development',
    rating: 5,
    bestSeller: true,
    available: true,
    fileSizeBytes: 8_388_608,
    featured: true,
    featuredPosition: 0,
    topics: ['backend', 'node', 'api', 'databases', 'docker'],
  },
  {
    slug: 'frontend-fastlane-plan-with-projects',
    title: 'Frontend Fastlane Plan With Projects',
    author: 'Tobias Lindqvist',
    description:
      'A twelve-week plan that takes you from semantic HTML to a deployed single-page app through six portfolio projects. Each project adds one skill: responsive layouts with Flexbox and Grid, accessible forms, fetching data from APIs, client-side routing and automated tests.',
    priceCents: 9900,
    currency: 'USD',
    coverPath: '/covers/frontend-fastlane-plan-with-projects.svg',
    coverAlt: 'Cover of Frontend Fastlane Plan With Projects',
    rating: 4,
    bestSeller: false,
    available: true,
    fileSizeBytes: 5_242_880,
    featured: true,
    featuredPosition: 1,
    topics: ['frontend', 'html', 'css', 'javascript', 'projects'],
  },
  {
    slug: 'javascript-basics-to-advance',
    title: 'JavaScript Basics To Advance',
    author: 'Priya Raghunathan',
    description:
      "Learn JavaScript from variables and functions through to closures, prototypes and asynchronous code. Later chapters cover promises and async/await, ES modules, the event loop and error handling, with small utilities you test using Node's built-in test runner.",
    priceCents: 9900,
    currency: 'USD',
    coverPath: '/covers/javascript-basics-to-advance.svg',
    coverAlt: 'Cover of JavaScript Basics To Advance',
    rating: 5,
    bestSeller: true,
    available: true,
    fileSizeBytes: 5_242_880,
    featured: true,
    featuredPosition: 2,
    topics: ['javascript', 'programming', 'async', 'node'],
  },
  {
    slug: 'basics-to-advanced-in-react',
    title: 'Basics To Advanced In React',
    author: 'Daniel Moreau',
    description:
      'Build React applications with function components and hooks, starting from JSX and props. You manage state with useState and useReducer, share it through context, load data in effects, cut wasted renders with memoisation, and test components with React Testing Library.',
    priceCents: 9900,
    currency: 'USD',
    coverPath: '/covers/basics-to-advanced-in-react.svg',
    coverAlt: 'Cover of Basics To Advanced In React',
    rating: 5,
    bestSeller: true,
    available: true,
    fileSizeBytes: 6_815_744,
    featured: false,
    featuredPosition: null,
    topics: ['react', 'javascript', 'frontend', 'hooks', 'testing'],
  },
  {
    slug: 'django-framework',
    title: 'Django Framework',
    author: 'Hana Kowalczyk',
    description:
      'Build a complete web application with Django, from models and the admin site to views, templates and forms. Along the way you write database migrations, handle user sign-in, expose a JSON API with Django REST Framework, and deploy behind Gunicorn and Nginx.',
    priceCents: 1900,
    currency: 'USD',
    coverPath: '/covers/django-framework.svg',
    coverAlt: 'Cover of Django Framework',
    rating: 3,
    bestSeller: false,
    available: true,
    fileSizeBytes: 3_145_728,
    featured: false,
    featuredPosition: null,
    topics: ['python', 'django', 'web', 'backend', 'databases'],
  },
  {
    slug: 'the-future-of-design-systems',
    title: 'The Future of Design Systems',
    author: 'Lucía Ferreira',
    description:
      'Plan, build and maintain a design system that designers and developers share. It covers design tokens for colour, type and spacing, a component library in CSS and React, automated accessibility checks, a documentation site, and versioning changes without breaking products.',
    priceCents: 4900,
    currency: 'USD',
    coverPath: '/covers/the-future-of-design-systems.svg',
    coverAlt: 'Cover of The Future of Design Systems',
    rating: 4,
    bestSeller: false,
    available: true,
    fileSizeBytes: 4_718_592,
    featured: false,
    featuredPosition: null,
    topics: ['design', 'css', 'react', 'accessibility'],
  },
  {
    slug: 'build-a-blockchain-from-scratch-in-go',
    title: 'Build a Blockchain from Scratch in Go',
    author: 'Kenji Arakawa',
    description:
      'Write a working blockchain in Go, one package at a time. You hash blocks with SHA-256, implement proof-of-work mining, sign transactions with elliptic-curve keys, track balances in a UTXO set, and keep nodes in sync over a small peer-to-peer network.',
    priceCents: 1900,
    currency: 'USD',
    coverPath: '/covers/build-a-blockchain-from-scratch-in-go.svg',
    coverAlt: 'Cover of Build a Blockchain from Scratch in Go',
    rating: 4,
    bestSeller: false,
    available: true,
    fileSizeBytes: 2_621_440,
    featured: false,
    featuredPosition: null,
    topics: ['go', 'blockchain', 'cryptography', 'networking'],
  },
]

/**
 * The seed authors' bios (Markdown), by name: the seed's authors are fictional, so each bio says only what
 * they write about and how, nothing a reader could take for a real person's life. Set when the seed creates the
 * author's book; the owner edits them in the back office (/admin/authors).
 */
export const seedAuthorBios: ReadonlyMap<string, string> = new Map([
  [
    'Marisol Okafor',
    'Marisol Okafor writes about the server side of the web: APIs, databases, queues and the habits that keep a backend running after launch day.\n\nHer chapters start from a working service and change it one step at a time, with tests at every step.',
  ],
  [
    'Tobias Lindqvist',
    'Tobias Lindqvist writes project-based guides to frontend development: HTML, CSS and JavaScript learned by building pages people actually use.\n\nEach of his books ends with projects a reader can put in a portfolio.',
  ],
  [
    'Priya Raghunathan',
    'Priya Raghunathan writes about JavaScript, from its first syntax to asynchronous code and the runtime underneath.\n\nShe explains each idea with a short program before naming it.',
  ],
  [
    'Daniel Moreau',
    'Daniel Moreau writes about building interfaces with React: components, hooks, state and the tests that keep them honest.\n\nHis examples grow into one application over the course of a book.',
  ],
  [
    'Hana Kowalczyk',
    'Hana Kowalczyk writes about Python on the web, and about Django above all: models, views, forms and getting an application to production.\n\nHer books favour the framework’s own tools over extra dependencies.',
  ],
  [
    'Lucía Ferreira',
    'Lucía Ferreira writes about design systems: tokens, components, accessibility and how design and engineering teams share one source of truth.\n\nHer chapters pair each principle with a component built from scratch.',
  ],
  [
    'Kenji Arakawa',
    'Kenji Arakawa writes about systems programming in Go: networking, cryptography and distributed data structures, built from first principles.\n\nHis books build one program end to end, a chapter at a time.',
  ],
])
