#include "stdlib/list_walk.h"

namespace kiln {

ListWalk::ListWalk(const char *who, int first_pos, int n, const Value *lists) : cur_(n), n_(n), steps_(-1) {
  for (int i = 0; i < n; i++) {
    cur_[i] = lists[i];
    int64_t len = list_length(lists[i]);
    if (len >= 0) {
      if (steps_ < 0 || len < steps_) steps_ = len;
    } else if (!is_circular(lists[i])) {
      not_proper_list(who, first_pos + i, lists[i]);
    }
  }
  // Every list circular: the walk would never end (and printing the list in a
  // message would not either).
  if (steps_ < 0) throw_errorf("{}: all the lists are circular", who);
}

bool ListWalk::next(Value *out) {
  if (steps_ == 0) return false;
  // The procedure being mapped may have cut a list short with set-cdr!.
  for (int i = 0; i < n_; i++)
    if (!is_pair(cur_[i])) return false;
  cur_.detach(n_);
  for (int i = 0; i < n_; i++) {
    out[i] = car(cur_[i]);
    cur_[i] = cdr(cur_[i]);
  }
  steps_--;
  return true;
}

}  // namespace kiln
