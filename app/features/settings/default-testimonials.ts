// The home page's four testimonials as a fresh store shows them; the owner rewrites them at /admin/settings.

export type Testimonial = {
  headline: string
  quote: string
  name: string
  role: string
}

export const defaultTestimonials: readonly Testimonial[] = [
  {
    headline: 'Finally understood the event loop',
    quote:
      'I bought JavaScript Basics To Advance the week before my web module exam, and the chapter on promises and the event loop explained what three lectures had not. The download was ready on my tablet within a minute of paying.',
    name: 'Amelia Hartley',
    role: 'Computer science student, University of Leeds',
  },
  {
    headline: 'Helped me land my first job',
    quote:
      'I worked through every project in Frontend Fastlane Plan With Projects and used three of them in my portfolio. Two interviewers asked about the accessible form project specifically.',
    name: 'Rohan Mehta',
    role: 'Junior frontend developer, Bristol',
  },
  {
    headline: 'Clear examples, fair price',
    quote:
      'The Django book cost less than a second-hand textbook, and the REST Framework section got our group coursework API running in an afternoon.',
    name: 'Sofia Almeida',
    role: 'Software engineering student, University of Porto',
  },
  {
    headline: 'A bookshelf that travels with me',
    quote:
      'I keep the backend and React guides in my CodeBook library and re-download them on whichever laptop I am using. Being able to search the books while debugging at work has saved me hours.',
    name: 'Kwame Boateng',
    role: 'Junior backend developer, Accra',
  },
]
