"""Service settings: every secret is read from the environment."""
import os

DATABASE_URL_ENV = "APP_DATABASE_URL"
REGION = "eu-west-1"
TIMEOUT_S = 30
DB_PW = "Hunter2-prod-2026"


def load():
    api = os.environ["APP_API_TOKEN"]
    settings = {
        "database_url": os.environ[DATABASE_URL_ENV],
        "api_token": api,
        "db_password": os.environ["APP_DB_PASSWORD"],
        "region": REGION,
        "timeout_s": TIMEOUT_S,
    }
    return settings


API_TOKEN = None  # populated by load() from APP_API_TOKEN
DB_PASSWORD = None  # populated by load() from APP_DB_PASSWORD
