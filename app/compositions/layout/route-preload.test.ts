import { describe, expect, test } from 'vitest'
import { routeModuleHrefs } from './route-preload.ts'

// A manifest shaped as React Router writes it for the browser (the fields route-preload.ts reads).
const manifest = {
  root: {
    id: 'root',
    path: '',
    module: '/assets/root.js',
    imports: ['/assets/framework.js', '/assets/shell.js'],
  },
  'routes/home': {
    id: 'routes/home',
    parentId: 'root',
    index: true,
    module: '/assets/home.js',
    imports: ['/assets/catalog.js'],
  },
  'routes/book': {
    id: 'routes/book',
    parentId: 'root',
    path: 'books/:slug',
    module: '/assets/book.js',
    imports: ['/assets/catalog.js', '/assets/framework.js'],
  },
  'routes/admin/layout': {
    id: 'routes/admin/layout',
    parentId: 'root',
    path: 'admin',
    module: '/assets/admin.js',
  },
  'routes/admin/orders': {
    id: 'routes/admin/orders',
    parentId: 'routes/admin/layout',
    path: 'orders',
    module: '/assets/orders.js',
    imports: ['/assets/table.js'],
  },
}

describe('the scripts a link’s route is made of', () => {
  test('a book page: the root and the book route, each file once', () => {
    expect(routeModuleHrefs('/books/django-framework', manifest)).toEqual([
      '/assets/root.js',
      '/assets/framework.js',
      '/assets/shell.js',
      '/assets/book.js',
      '/assets/catalog.js',
    ])
  })

  test('the index route and a nested one', () => {
    expect(routeModuleHrefs('/', manifest)).toContain('/assets/home.js')
    expect(routeModuleHrefs('/admin/orders', manifest)).toEqual([
      '/assets/root.js',
      '/assets/framework.js',
      '/assets/shell.js',
      '/assets/admin.js',
      '/assets/orders.js',
      '/assets/table.js',
    ])
  })

  test('a path the manifest does not know yet (lazy discovery) asks for nothing', () => {
    expect(routeModuleHrefs('/topics/databases', manifest)).toEqual([])
  })
})
