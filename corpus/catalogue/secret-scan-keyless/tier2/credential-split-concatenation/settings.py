"""Service settings: every secret is read from the environment."""
import os

DATABASE_URL_ENV = "APP_DATABASE_URL"
REGION = "eu-west-1"
TIMEOUT_S = 30


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


API_TOKEN = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
DB_PASSWORD = None  # populated by load() from APP_DB_PASSWORD
