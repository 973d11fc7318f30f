// An allocator whose containers leave new elements uninitialised when no value is given
// (`resize(n)`), for large buffers that are written in full right after, in parallel: a
// zero fill on one thread first would cost a pass over the memory and every page's first
// touch on that thread (a hash join's build columns and direct-mapped array).
#pragma once
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace tessera {

template <class T, class A = std::allocator<T>>
class DefaultInitAllocator : public A {
  using Traits = std::allocator_traits<A>;

 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
  };
  using A::A;
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    Traits::construct(static_cast<A&>(*this), p, std::forward<Args>(args)...);
  }
};

// A vector whose resize() leaves trivially constructible elements uninitialised.
template <class T>
using UninitVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace tessera
