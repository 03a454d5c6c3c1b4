_USERS = {}


def create_user(name, email):
    """Create a user and return its id."""
    uid = len(_USERS) + 1
    _USERS[uid] = {"name": name, "email": email}
    return uid


def get_user(uid):
    """Return the user with this id, or None."""
    found = _USERS.get(uid)
    return found


def delete_user(uid):
    """Delete the user with this id; return True if it existed."""
    existed = uid in _USERS
    _USERS.pop(uid, None)
    return existed


def _reset():
    _USERS.clear()
