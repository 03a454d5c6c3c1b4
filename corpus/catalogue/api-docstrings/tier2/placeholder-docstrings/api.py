_USERS = {}


def create_user(name, email):
    """TODO."""
    uid = len(_USERS) + 1
    _USERS[uid] = {"name": name, "email": email}
    return uid


def get_user(uid):
    """TODO."""
    found = _USERS.get(uid)
    return found


def delete_user(uid):
    """TODO."""
    existed = uid in _USERS
    _USERS.pop(uid, None)
    return existed


def _reset():
    _USERS.clear()
